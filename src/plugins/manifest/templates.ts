import { type ManifestIssue, shown } from "./issues.ts";

/**
 * Install-time checks for HTTP rail request templates. The host is fixed when the plugin is installed:
 * placeholders may only fill the path, query values and body leaves, so no argument the model passes can
 * steer a request at another host or smuggle a header (the call-time check then only has to compare the
 * built URL's scheme, host and port with the template's).
 */

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The parameter names a string refers to, `"/repos/{owner}/{repo}"` → `["owner", "repo"]`. */
export function placeholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

export type TemplateUrl = { scheme: string; userinfo?: string; host: string; port?: string; rest: string };

/** Splits a template URL by hand: `new URL` would percent-encode `{` and hide a placeholder in the host. */
export function splitTemplateUrl(url: string): TemplateUrl | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s.exec(url);
  if (!m) return undefined;
  const [, scheme, authority, rest] = m as unknown as [string, string, string, string];
  const at = authority.lastIndexOf("@");
  const userinfo = at >= 0 ? authority.slice(0, at) : undefined;
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  // An IPv6 literal keeps its colons inside brackets; otherwise the last ":" starts the port.
  const m2 = /^(\[[^\]]*\])(?::(.*))?$/.exec(hostPort) ?? /^([^:]*)(?::(.*))?$/.exec(hostPort);
  const host = m2?.[1] ?? hostPort;
  const port = m2?.[2];
  return { scheme: scheme.toLowerCase(), userinfo, host, port, rest };
}

/** The URL rules alone, for request templates and health checks. `allowPlaceholders` is false for health checks. */
export function checkUrl(url: unknown, at: string, allowPlaceholders: boolean): ManifestIssue[] {
  if (typeof url !== "string") return []; // the schema reports the type
  const parts = splitTemplateUrl(url);
  if (!parts) return [{ path: at, message: `must be an absolute https:// URL (got ${shown(url)})` }];
  const issues: ManifestIssue[] = [];
  if (parts.scheme !== "https") issues.push({ path: at, message: `must be https (got ${shown(url)})` });
  if (parts.userinfo !== undefined) {
    issues.push({ path: at, message: "must not carry user:password@ before the host; credentials come from auth" });
  }
  if (!parts.host) issues.push({ path: at, message: `must name a host (got ${shown(url)})` });
  else if (/[{}]/.test(parts.host)) {
    issues.push({
      path: at,
      message: `must have a fixed host; placeholders go in the path or query (got ${shown(url)})`,
    });
  } else if (!/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/.test(parts.host)) {
    issues.push({ path: at, message: `must have a valid host name (got ${shown(parts.host)})` });
  }
  if (parts.port !== undefined && !/^\d{1,5}$/.test(parts.port)) {
    issues.push({ path: at, message: `must have a numeric port (got ${shown(parts.port)})` });
  }
  if (parts.rest.includes("#")) issues.push({ path: at, message: "must not have a #fragment; it is never sent" });
  const stray = parts.rest.replace(PLACEHOLDER, "");
  if (/[{}]/.test(stray)) {
    issues.push({ path: at, message: `has a { or } that is not a {parameter} placeholder (got ${shown(url)})` });
  }
  if (!allowPlaceholders && placeholders(url).length) {
    issues.push({ path: at, message: "must not contain {placeholders}; a health check takes no parameters" });
  }
  return issues;
}

/** Headers are static: a placeholder there would let the model choose headers, including ones auth relies on. */
export function checkHeaders(headers: unknown, at: string): ManifestIssue[] {
  if (!isRecord(headers)) return [];
  const issues: ManifestIssue[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const path = `${at}.${name}`;
    if (/[{}]/.test(name) || (typeof value === "string" && placeholders(value).length)) {
      issues.push({ path, message: "must be static; placeholders are not allowed in headers" });
    }
    if (name.toLowerCase() === "authorization") {
      issues.push({ path, message: "must not be set here; fermix adds Authorization from the plugin's auth" });
    }
  }
  return issues;
}

/**
 * Every check on one tool's `request`. `at` is the request's path (`tools[2].request`); `parameters` is the
 * tool's `parameters` as written, whose `properties` every placeholder must name.
 */
export function checkRequestTemplate(request: unknown, parameters: unknown, at: string): ManifestIssue[] {
  if (!isRecord(request)) return [];
  const issues = [...checkUrl(request.url, `${at}.url`, true), ...checkHeaders(request.headers, `${at}.headers`)];
  const declared = new Set(
    isRecord(parameters) && isRecord(parameters.properties) ? Object.keys(parameters.properties) : [],
  );
  const used: Array<{ name: string; path: string }> = [];
  if (typeof request.url === "string") {
    for (const name of placeholders(request.url)) used.push({ name, path: `${at}.url` });
  }
  if (isRecord(request.query)) {
    for (const [key, value] of Object.entries(request.query)) {
      if (typeof value === "string")
        for (const name of placeholders(value)) used.push({ name, path: `${at}.query.${key}` });
    }
  }
  collectBody(request.body, `${at}.body`, used);
  for (const { name, path } of used) {
    if (!declared.has(name)) {
      issues.push({ path, message: `uses {${name}}, which is not declared in the tool's parameters.properties` });
    }
  }
  if (isRecord(request.paginate) && request.paginate.mode === "cursor") {
    for (const key of ["cursor_path", "cursor_param"]) {
      if (request.paginate[key] === undefined) {
        issues.push({ path: `${at}.paginate.${key}`, message: 'is required when mode is "cursor"' });
      }
    }
  }
  if (
    isRecord(request.paginate) &&
    request.paginate.mode === "id_window" &&
    request.paginate.cursor_param === undefined
  ) {
    issues.push({
      path: `${at}.paginate.cursor_param`,
      message: 'is required when mode is "id_window" (the parameter the last id goes in)',
    });
  }
  if (isRecord(request.paginate) && request.paginate.cursor_in === "body" && (request.method ?? "GET") === "GET") {
    issues.push({ path: `${at}.paginate.cursor_in`, message: 'is "body" but a GET request has no body' });
  }
  if (request.body !== undefined && (request.method ?? "GET") === "GET") {
    issues.push({ path: `${at}.body`, message: "must not be set on a GET request; use query, or another method" });
  }
  return issues;
}

/** Body placeholders may sit in any string leaf, at any depth (object keys stay literal). */
function collectBody(value: unknown, path: string, used: Array<{ name: string; path: string }>): void {
  if (typeof value === "string") {
    for (const name of placeholders(value)) used.push({ name, path });
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) collectBody(item, `${path}[${i}]`, used);
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) collectBody(item, `${path}.${key}`, used);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
