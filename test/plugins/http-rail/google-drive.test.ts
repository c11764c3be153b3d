import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import { fakeGoogleDrive } from "../../fake/plugin-apis/google-drive.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { GOOGLEAPIS_IP, hostDoor } from "./_hosts.ts";
import { catalogTool, pluginOf } from "./_setup.ts";

const TOKEN = "ya29.a0AfB_drive-test-token-0123456789abcdefghij";
const READ = "https://www.googleapis.com/auth/drive.readonly";
const WRITE = "https://www.googleapis.com/auth/drive.file";
const serve = useFakeServers();
const plugin = pluginOf("google_drive");

function setup(files = 0) {
  const drive = fakeGoogleDrive({ token: TOKEN, files });
  const { origin } = serve(drive.handler);
  return { drive, net: hostDoor({ [GOOGLEAPIS_IP]: origin }).net };
}

async function call(
  net: ReturnType<typeof setup>["net"],
  tool: string,
  args: Record<string, unknown>,
  credential = TOKEN,
) {
  return callHttpTool({ plugin, tool: catalogTool("google_drive", tool), args, credential, net });
}

describe("google_drive reads", () => {
  test("files.list pages by pageToken and joins `files`; the query keeps q, orderBy and the fields mask", async () => {
    const { drive, net } = setup(5);
    const q = "name contains 'Budget' and trashed = false";
    const out = JSON.parse((await call(net, "google_drive_search_files", { q, pageSize: 2 })).content);
    expect(out.truncated).toBe(false);
    expect(out.items.map((f: { id: string }) => f.id)).toEqual(["f1", "f2", "f3", "f4", "f5"]);
    expect(drive.seen).toHaveLength(3);
    const [first, second] = drive.seen;
    expect(first!.method).toBe("GET");
    expect(first!.path).toBe("/drive/v3/files");
    expect(first!.query.get("q")).toBe(q);
    expect(first!.query.get("orderBy")).toBe("modifiedTime desc");
    expect(first!.query.get("pageSize")).toBe("2");
    expect(first!.query.get("fields")).toBe(
      "nextPageToken,files(id,name,mimeType,modifiedTime,size,webViewLink,parents)",
    );
    expect(second!.query.get("pageToken")).not.toBeNull();
  });

  test("list_folder fills the folder id inside q; max_pages 5 of 100 truncates a large folder", async () => {
    const { drive, net } = setup(520);
    const out = JSON.parse((await call(net, "google_drive_list_folder", {})).content);
    expect(out.items).toHaveLength(500);
    expect(out.truncated).toBe(true);
    expect(drive.seen).toHaveLength(5);
    expect(drive.seen[0]!.query.get("q")).toBe("'root' in parents and trashed = false");
    expect(drive.seen[0]!.query.get("orderBy")).toBe("folder,name");
  });

  test("about: storage quota as Drive sends it (int64 as strings)", async () => {
    const { drive, net } = setup();
    const out = JSON.parse((await call(net, "google_drive_storage", {})).content);
    expect(out.storageQuota).toEqual({ limit: "16106127360", usage: "5368709120", usageInDrive: "4294967296" });
    expect(drive.seen[0]!.path).toBe("/drive/v3/about");
    expect(drive.seen[0]!.query.toString()).toBe("fields=user%2CstorageQuota");
  });
});

describe("google_drive writes", () => {
  test("files.create makes a folder: POST with the folder MIME type; only the asked fields come back", async () => {
    const { drive, net } = setup();
    const result = await call(net, "google_drive_create_folder", { name: "Taxes 2025", parents: ["root"] });
    expect(JSON.parse(result.content)).toEqual({
      id: "new1",
      name: "Taxes 2025",
      webViewLink: "https://drive.google.com/drive/folders/new1/view",
    });
    const [req] = drive.seen;
    expect(req!.method).toBe("POST");
    expect(req!.path).toBe("/drive/v3/files");
    expect(req!.query.toString()).toBe("fields=id%2Cname%2CwebViewLink");
    expect(req!.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(req!.body)).toEqual({
      name: "Taxes 2025",
      mimeType: "application/vnd.google-apps.folder",
      parents: ["root"],
    });
  });
});

describe("google_drive errors, word for word", () => {
  test("401 asks for reconnection", async () => {
    const { net } = setup();
    expect(await call(net, "google_drive_storage", {}, "ya29.revoked")).toEqual({
      content: "google_drive needs reconnection. Run fermix plugins auth reauthorize google_drive.",
      isError: true,
    });
  });

  test("403 with a missing scope names drive.file for the write", async () => {
    const { drive, net } = setup();
    drive.state.mode = "scope";
    expect(await call(net, "google_drive_create_folder", { name: "x" })).toEqual({
      content:
        "google_drive is missing a permission google_drive_create_folder needs (insufficientPermissions): " +
        `it needs ${WRITE}. Run fermix plugins auth reauthorize google_drive and grant it.`,
      isError: true,
    });
  });

  test("403 with a missing scope names drive.readonly for a read", async () => {
    const { drive, net } = setup();
    drive.state.mode = "scope";
    expect((await call(net, "google_drive_search_files", {})).content).toBe(
      "google_drive is missing a permission google_drive_search_files needs (insufficientPermissions): " +
        `it needs ${READ}. Run fermix plugins auth reauthorize google_drive and grant it.`,
    );
  });

  test("403 insufficientFilePermissions (a view-only parent) is the item sentence", async () => {
    const { net } = setup();
    expect(await call(net, "google_drive_create_folder", { name: "x", parents: ["shared-ro"] })).toEqual({
      content:
        "google_drive has no access to that item (insufficientFilePermissions): the connected account cannot open " +
        "it; ask its owner to share it, or choose another.",
      isError: true,
    });
  });

  test("429 carries Retry-After", async () => {
    const { drive, net } = setup();
    drive.state.mode = "rate_limited";
    expect(await call(net, "google_drive_search_files", {})).toEqual({
      content: "google_drive is rate limiting requests (HTTP 429); retry after 45 seconds (Retry-After: 45).",
      isError: true,
    });
  });

  test("an unknown file is Drive's 404 body", async () => {
    const { net } = setup();
    expect(await call(net, "google_drive_get_file", { fileId: "nope" })).toEqual({
      content:
        'google_drive_get_file failed with HTTP 404: {"error":{"code":404,"message":"File not found: nope.",' +
        '"errors":[{"message":"File not found: nope.","domain":"global","reason":"notFound","location":"fileId",' +
        '"locationType":"parameter"}]}}',
      isError: true,
    });
  });
});
