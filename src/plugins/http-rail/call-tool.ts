import type { ToolResult } from "../../capabilities/tool.ts";
import { isFermixError } from "../../error.ts";
import { NetBlocked } from "../../net/net-error.ts";
import type { GuardedFetch, GuardedResponse } from "../../net/types.ts";
import { redact } from "../../observability/redact.ts";
import type { ManifestTool } from "../manifest/schema.ts";
import { type BuiltRequest, buildRequest } from "./build-request.ts";
import { type AuthType, apiKeyRejected, describeFailure, notConnected } from "./failure.ts";
import { collectPages, type Fetched } from "./paginate.ts";
import { extract, isJsonType } from "./response-shape.ts";

export type HttpRailPlugin = {
  name: string;
  auth: { type: AuthType; scheme?: "Bearer" | "Bot"; header?: string };
};

export type CallHttpToolInput = {
  plugin: HttpRailPlugin;
  tool: ManifestTool;
  args: Record<string, unknown>;
  /** The OAuth access token or API key; absent when the plugin was never connected. */
  credential?: string;
  net: GuardedFetch;
  /** Refreshes the OAuth token and returns the new one (undefined when it cannot). Used once, for read-only tools. */
  refresh?: () => Promise<string | undefined>;
  signal?: AbortSignal;
};

/** Per response, enforced by the door while streaming. */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/**
 * Runs one HTTP rail tool call. Every outcome is a ToolResult: failures carry `isError` and a sentence the model
 * can act on. The only thing thrown is the caller's own cancellation.
 *
 * @example
 * const result = await callHttpTool({ plugin: { name: "github", auth }, tool, args, credential: token, net });
 */
export async function callHttpTool(input: CallHttpToolInput): Promise<ToolResult> {
  const { plugin, tool } = input;
  let first: BuiltRequest;
  try {
    first = buildRequest(tool, input.args);
  } catch (err) {
    return failed(isFermixError(err) ? err.message : `${tool.name}: ${String(err)}`);
  }
  if (plugin.auth.type !== "none" && !input.credential) {
    return failed(plugin.auth.type === "oauth2" ? notConnected(plugin.name) : apiKeyRejected(plugin.name));
  }

  const session = { token: input.credential, refreshed: false };
  const fetchPage = (request: BuiltRequest) => exchange(input, session, request);
  try {
    const spec = tool.request?.paginate;
    if (spec) {
      const paged = await collectPages(tool.name, first, spec, tool.request?.extract?.fields, fetchPage);
      return paged.ok ? { content: JSON.stringify(paged.value) } : paged.result;
    }
    const got = await fetchPage(first);
    return got.ok ? { content: JSON.stringify(extract(got.json, tool.request?.extract)) } : got.result;
  } catch (err) {
    if (input.signal?.aborted) throw err;
    const message = err instanceof Error ? err.message : String(err);
    const secrets = [input.credential, session.token].filter((s): s is string => !!s);
    if (NetBlocked.is(err)) return failed(`${tool.name} was refused by the network guard: ${redact(message, secrets)}`);
    return failed(`${tool.name} could not reach ${plugin.name}: ${redact(message, secrets)}`);
  }
}

/** Sends one request (twice at most: a read-only OAuth call retries once after a refresh) and judges the answer. */
async function exchange(
  input: CallHttpToolInput,
  session: { token?: string; refreshed: boolean },
  request: BuiltRequest,
): Promise<Fetched> {
  const { plugin, tool } = input;
  for (;;) {
    const response = await input.net(request.url, {
      method: request.method,
      headers: withCredential(request.headers, plugin.auth, session.token),
      body: request.body,
      maxRedirects: 0, // a redirect could carry the token's request to a place the template never named
      maxBytes: MAX_RESPONSE_BYTES,
      signal: input.signal,
    });
    // A write is never retried: the first attempt may have taken effect even though the answer was 401.
    const canRefresh = plugin.auth.type === "oauth2" && tool.read_only && input.refresh && !session.refreshed;
    if (response.status === 401 && canRefresh) {
      session.refreshed = true;
      const fresh = await input.refresh!().catch(() => undefined);
      if (fresh) {
        session.token = fresh;
        continue;
      }
    }
    return judge(input, session.token, response);
  }
}

function judge(input: CallHttpToolInput, token: string | undefined, response: GuardedResponse): Fetched {
  const { plugin, tool } = input;
  const { status, headers, body } = response;
  if (status >= 300 && status < 400) {
    const location = headers.get("location") ?? "(no Location header)";
    return error(
      `${tool.name} was redirected (HTTP ${status}) to ${location}; plugin requests never follow redirects.`,
    );
  }
  const success = tool.request?.success ?? [200];
  if (!success.includes(status)) {
    const scopes = tool.requires_scopes ?? [];
    const answer = { plugin: plugin.name, auth: plugin.auth.type, tool: tool.name, scopes, status, headers, body };
    return error(describeFailure({ ...answer, credential: token }));
  }
  if (response.truncated) {
    return error(`${tool.name} failed: the response is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB.`);
  }
  if (status === 204 || body.length === 0) return { ok: true, json: {}, bytes: body.length };
  const type = headers.get("content-type");
  if (!isJsonType(type)) {
    return error(
      `${tool.name} failed: expected a JSON response but got ${type ?? "no Content-Type"} (HTTP ${status}).`,
    );
  }
  try {
    return { ok: true, json: JSON.parse(new TextDecoder().decode(body)), bytes: body.length };
  } catch {
    return error(`${tool.name} failed: the response (HTTP ${status}) is not valid JSON.`);
  }
}

/** `<header or Authorization>: <scheme> <token>`, replacing any same-named template header whatever its case. */
function withCredential(
  headers: Record<string, string>,
  auth: HttpRailPlugin["auth"],
  token: string | undefined,
): Record<string, string> {
  if (auth.type === "none" || token === undefined) return headers;
  const name = auth.header ?? "Authorization";
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() !== name.toLowerCase()) out[key] = value;
  out[name] = `${auth.scheme ?? "Bearer"} ${token}`;
  return out;
}

function failed(content: string): ToolResult {
  return { content, isError: true };
}

function error(content: string): Fetched {
  return { ok: false, result: failed(content) };
}
