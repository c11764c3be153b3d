import { defineError } from "../../error.ts";
import type { ManifestTool } from "../manifest/schema.ts";
import { isRecord, splitTemplateUrl } from "../manifest/templates.ts";
import { checkArgs } from "./check-args.ts";

/** The template or an argument would send the request somewhere the template does not name. */
export const PluginRequestRefused = defineError<{ tool: string }>("plugin_request_refused");

export type BuiltRequest = { method: string; url: string; headers: Record<string, string>; body?: string };

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const DEFAULT_PORTS: Record<string, string> = { "https:": "443", "http:": "80" };

/**
 * Fills a tool's request template with checked arguments. Placeholders fill only the URL path (encoded, so a value
 * cannot add segments or a host), query values and body leaves; the host and headers are fixed by the manifest.
 * Throws PluginArgsInvalid or PluginRequestRefused.
 *
 * @example
 * buildRequest(githubGetIssue, { owner: "o", repo: "r", issue_number: 7 })
 * // → { method: "GET", url: "https://api.github.com/repos/o/r/issues/7", headers: { … } }
 */
export function buildRequest(tool: ManifestTool, args: Record<string, unknown>): BuiltRequest {
  const request = tool.request;
  const refuse = (why: string) => PluginRequestRefused(`${tool.name}: ${why}`, { tool: tool.name });
  if (request === undefined) throw refuse("the tool has no HTTP request template");
  const values = checkArgs(tool.name, tool.parameters, args);

  // Split by hand: `new URL` would percent-encode a `{` in the host and hide it.
  const parts = splitTemplateUrl(request.url);
  if (!parts) throw refuse(`the request URL is not an absolute URL (${request.url})`);
  if (parts.scheme !== "https") throw refuse(`the request URL must be https (${request.url})`);
  if (parts.userinfo !== undefined) throw refuse("the request URL must not carry user:password@");
  if (!parts.host || /[{}]/.test(parts.host) || (parts.port !== undefined && /[{}]/.test(parts.port))) {
    throw refuse("the request URL must have a fixed host; placeholders may only fill the path and query");
  }

  const rest = parts.rest.replace(PLACEHOLDER, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw refuse(`argument "${name}" is needed to build the URL`);
    const text = asText(value);
    // "." and ".." survive encoding and would be resolved as dot segments, moving the request to another endpoint.
    if (text === "." || text === ".." || text === "") throw refuse(`argument "${name}" must not be "${text}"`);
    return encodeURIComponent(text);
  });
  const port = parts.port !== undefined ? `:${parts.port}` : "";
  let url: URL;
  try {
    url = new URL(`${parts.scheme}://${parts.host}${port}${rest}`);
  } catch {
    throw refuse(`the request URL does not parse (${request.url})`);
  }

  for (const [key, template] of Object.entries(request.query ?? {})) {
    if (typeof template !== "string") {
      url.searchParams.append(key, String(template));
      continue;
    }
    const whole = WHOLE.exec(template);
    if (whole) {
      const value = values[whole[1]!];
      if (value === undefined) continue; // an optional query parameter left out is simply not sent
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, asText(item));
      continue;
    }
    url.searchParams.append(
      key,
      template.replace(PLACEHOLDER, (_, name: string) => asText(values[name] ?? "")),
    );
  }

  // The check the install-time rules make possible: whatever the arguments were, the origin is the template's.
  const expectedPort = parts.port ?? DEFAULT_PORTS[`${parts.scheme}:`];
  const actualPort = url.port || DEFAULT_PORTS[url.protocol];
  const sameOrigin =
    url.protocol === `${parts.scheme}:` &&
    url.hostname.toLowerCase() === parts.host.toLowerCase() &&
    actualPort === expectedPort &&
    url.username === "" &&
    url.password === "";
  if (!sameOrigin) throw refuse(`the built URL ${url.origin} leaves the template's origin (${request.url})`);

  const headers: Record<string, string> = { ...request.headers };
  const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  if (!has("accept")) headers.Accept = "application/json";
  const built: BuiltRequest = { method: request.method ?? "GET", url: url.href, headers };
  if (request.body !== undefined) {
    // The top-level object is always sent, even emptied: a JSON endpoint expects a JSON body.
    const body = fillBody(request.body, values) ?? (isRecord(request.body) ? {} : undefined);
    if (body !== undefined) {
      built.body = JSON.stringify(body);
      if (!has("content-type")) headers["Content-Type"] = "application/json";
    }
  }
  return built;
}

/** Fills body leaves; `undefined` means "drop this leaf". Only objects emptied by dropping are dropped themselves. */
function fillBody(template: unknown, values: Record<string, unknown>): unknown {
  if (typeof template === "string") {
    const whole = WHOLE.exec(template);
    // A whole-leaf placeholder keeps the argument's JSON type (a number stays a number, a list a list).
    if (whole) return values[whole[1]!];
    return template.replace(PLACEHOLDER, (_, name: string) => asText(values[name] ?? ""));
  }
  if (Array.isArray(template)) {
    return template.map((item) => fillBody(item, values)).filter((item) => item !== undefined);
  }
  if (isRecord(template)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(template)) {
      const filled = fillBody(item, values);
      if (filled !== undefined) out[key] = filled;
    }
    return Object.keys(out).length === 0 && Object.keys(template).length > 0 ? undefined : out;
  }
  return template;
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}
