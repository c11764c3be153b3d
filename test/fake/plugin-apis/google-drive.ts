import {
  googleError,
  googleRateLimited,
  googleScopeInsufficient,
  googleUnauthenticated,
  offsetOf,
  pageToken,
} from "./google-error.ts";
import { bearer, json, record, type Seen } from "./recorder.ts";

const FOLDER = "application/vnd.google-apps.folder";

type DriveFile = Record<string, unknown> & { id: string; name: string; parents: string[] };

/**
 * A Google Drive v3 fake: files.list paged by `pageToken` and honouring `pageSize` (capped at Drive's 1000) and the
 * `'<id>' in parents` clause of `q`; files.create answering only the fields asked for; files.get; about. Parents the
 * account may only view answer insufficientFilePermissions, as Drive does when asked to write into them.
 */
export function fakeGoogleDrive(opts: { token: string; files?: number }) {
  const seen: Seen[] = [];
  const state = {
    mode: "ok" as "ok" | "scope" | "rate_limited",
    viewOnly: new Set<string>(["shared-ro"]),
    files: Array.from({ length: opts.files ?? 0 }, (_, i) => fileOf(`f${i + 1}`, `Budget ${i + 1}.xlsx`, "root")),
  };

  const handler = async (request: Request): Promise<Response> => {
    const req = await record(request, seen);
    if (bearer(req) !== opts.token) return googleUnauthenticated();
    if (state.mode === "scope") return googleScopeInsufficient("drive.googleapis.com", methodOf(req));
    if (state.mode === "rate_limited") return googleRateLimited("45");

    if (req.method === "GET" && req.path === "/drive/v3/files") {
      const parent = /'([^']+)' in parents/.exec(req.query.get("q") ?? "")?.[1];
      const matching = parent ? state.files.filter((f) => f.parents.includes(parent)) : state.files;
      const size = Math.min(Number(req.query.get("pageSize") ?? 100), 1000);
      const start = offsetOf(req.query.get("pageToken"));
      if (start < 0) return googleError(400, "invalid", "Invalid Value", { location: "pageToken" });
      const body: Record<string, unknown> = {};
      if (start + size < matching.length) body.nextPageToken = pageToken(start + size);
      body.files = matching.slice(start, start + size);
      return json(body);
    }
    if (req.method === "POST" && req.path === "/drive/v3/files") {
      const input = JSON.parse(req.body || "{}");
      const parent = input.parents?.[0] ?? "root";
      if (state.viewOnly.has(parent)) {
        const message = "The user does not have sufficient permissions for this file.";
        return googleError(403, "insufficientFilePermissions", message);
      }
      const file = fileOf(`new${state.files.length + 1}`, input.name, parent, input.mimeType);
      state.files.push(file);
      return json(onlyFields(file, req.query.get("fields")));
    }
    const one = /^\/drive\/v3\/files\/([^/]+)$/.exec(req.path);
    if (req.method === "GET" && one) {
      const file = state.files.find((f) => f.id === one[1]);
      const message = `File not found: ${one[1]}.`;
      if (!file) return googleError(404, "notFound", message, { location: "fileId" });
      return json(onlyFields(file, req.query.get("fields")));
    }
    if (req.method === "GET" && req.path === "/drive/v3/about") {
      const user = { kind: "drive#user", displayName: "Ada", emailAddress: "ada@example.com", me: true };
      // Drive sends int64 quantities as strings.
      const storageQuota = { limit: "16106127360", usage: "5368709120", usageInDrive: "4294967296" };
      return json({ user, storageQuota });
    }
    return googleError(404, "notFound", "Not Found");
  };
  return { handler, seen, state };
}

function fileOf(id: string, name: string, parent: string, mimeType = "application/vnd.ms-excel"): DriveFile {
  return {
    kind: "drive#file",
    id,
    name,
    mimeType,
    parents: [parent],
    modifiedTime: "2025-05-01T08:00:00.000Z",
    webViewLink: `https://drive.google.com/${mimeType === FOLDER ? "drive/folders" : "file/d"}/${id}/view`,
    ...(mimeType === FOLDER ? {} : { size: "2048" }),
  };
}

/** Drive's partial response: with `fields` only those top-level keys come back. */
function onlyFields(file: DriveFile, fields: string | null): Record<string, unknown> {
  if (!fields) return { kind: file.kind, id: file.id, name: file.name, mimeType: file.mimeType };
  const keep = fields.split(",").map((f) => f.trim());
  return Object.fromEntries(Object.entries(file).filter(([k]) => keep.includes(k)));
}

function methodOf(req: Seen): string {
  return req.method === "POST" ? "google.apps.drive.v3.DriveFiles.Create" : "google.apps.drive.v3.DriveFiles.List";
}
