import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { SecretRef } from "./secret-ref.ts";

/** The classes an owner writes in config.toml (the earlier product's vocabulary); mcp/outbound maps them to fermix's. */
export const McpPolicyClass = lazySchema(() =>
  v.picklist(
    ["read_only", "read_write", "exec", "network", "external_api"],
    '"read_only", "read_write", "exec", "network" or "external_api"',
  ),
);
export type McpPolicyClass = v.InferOutput<typeof McpPolicyClass>;

type Issue = {
  message: string;
  received?: string;
  path: [{ type: "object"; origin: "value"; input: Record<string, unknown>; key: string; value: unknown }];
};

/**
 * What a server block must hold beyond each key's own type: exactly one of `command` or `url`, none of the keys
 * that belong to the other kind, and no env value that is really a pass_env. Each issue is named at its key, so
 * the load error points at the line to change.
 */
function serverShapeProblems(server: Record<string, unknown>): Issue[] {
  const at = (key: string, message: string): Issue => ({
    message,
    received: server[key] === undefined ? "undefined" : JSON.stringify(server[key]),
    path: [{ type: "object", origin: "value", input: server, key, value: server[key] }],
  });
  const issues: Issue[] = [];
  const hasCommand = server.command !== undefined;
  const hasUrl = server.url !== undefined;
  if (hasCommand && hasUrl) {
    issues.push(at("url", "either command (a local server) or url (a streamable-HTTP server), not both: remove one"));
  } else if (!hasCommand && !hasUrl) {
    issues.push(at("command", 'a command to run (e.g. command = "npx"), or url = "http://…" for an HTTP server'));
  }
  if (hasUrl) {
    for (const key of ["args", "env", "pass_env"]) {
      if (server[key] !== undefined) issues.push(at(key, `no ${key} for a url server (${key} is for a command)`));
    }
  }
  if (hasCommand && server.headers !== undefined) {
    issues.push(at("headers", "no headers for a command server (headers are for a url)"));
  }
  const env = (server.env ?? {}) as Record<string, string>;
  for (const [name, value] of Object.entries(env)) {
    if (/^\$env:/i.test(value) || /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(value)) {
      issues.push(
        at("env", `a literal value for ${name}; to pass the daemon's own ${name} through, list it in pass_env instead`),
      );
    }
  }
  const passed = new Set((server.pass_env ?? []) as string[]);
  for (const name of Object.keys(env)) {
    if (passed.has(name)) issues.push(at("pass_env", `${name} set in env or passed in pass_env, not both`));
  }
  return issues;
}

/**
 * [mcp.servers.<name>]: an MCP server the owner wired in, run over stdio (`command`) or reached over streamable
 * HTTP (`url`, loopback allowed). Its tools are `mcp_<name>_<tool>`, class `policy_class` (default
 * "external_api"), overridable per tool in [mcp.servers.<name>.tools.<tool>]. What needs the other servers
 * (a clash of names) is checked where they are run: src/mcp/outbound/server-config.ts.
 */
export const McpServerConfig = lazySchema(() =>
  v.pipe(
    v.strictObject({
      enabled: v.optional(v.boolean()),
      command: v.optional(v.pipe(v.string(), v.minLength(1, 'a program to run, e.g. "npx"'))),
      args: v.optional(v.array(v.string())),
      env: v.optional(v.record(v.string(), v.string())),
      pass_env: v.optional(
        v.array(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"))),
      ),
      url: v.optional(
        v.pipe(v.string(), v.regex(/^https?:\/\/\S+$/, 'an http(s) URL, e.g. "http://127.0.0.1:3001/mcp"')),
      ),
      headers: v.optional(v.record(v.string(), SecretRef)),
      policy_class: v.optional(McpPolicyClass),
      tools: v.optional(v.record(v.string(), v.strictObject({ policy_class: v.optional(McpPolicyClass) }))),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (dataset.typed) for (const problem of serverShapeProblems(dataset.value)) addIssue(problem);
    }),
  ),
);
export type McpServerConfig = v.InferOutput<typeof McpServerConfig>;

/**
 * [mcp.inbound]: fermix as an MCP server (`fermix mcp serve` on stdio, or streamable HTTP on the web listener).
 * What it exposes is decided in src/mcp/inbound/exposed-tools.ts; the bearer is required for HTTP because any
 * local process can reach a loopback port.
 */
const McpInboundTool = lazySchema(() =>
  v.strictObject({
    exposed: v.optional(v.boolean()),
    description_override: v.optional(v.pipe(v.string(), v.minLength(1))),
  }),
);
export const McpInboundConfig = lazySchema(() =>
  v.pipe(
    v.strictObject({
      enabled: v.optional(v.boolean()),
      transport: v.optional(v.picklist(["stdio", "streamable_http"], '"stdio" or "streamable_http"')),
      expose_kinds: v.optional(v.array(v.picklist(["builtin"], '"builtin" (the only kind fermix exposes)'))),
      expose_policy_classes: v.optional(v.array(McpPolicyClass)),
      allowed_tools: v.optional(v.array(v.string())),
      denied_tools: v.optional(v.array(v.string())),
      server_name: v.optional(v.pipe(v.string(), v.minLength(1))),
      server_version: v.optional(v.pipe(v.string(), v.minLength(1))),
      request_timeout_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1000, "at least 1000 (ms)"))),
      http: v.optional(
        v.strictObject({
          path: v.optional(v.pipe(v.string(), v.regex(/^\/[A-Za-z0-9._~/-]*$/, 'a path such as "/mcp"'))),
          auth_token: v.optional(SecretRef),
        }),
      ),
      tools: v.optional(v.record(v.string(), McpInboundTool)),
    }),
    // Named at the missing key itself ([mcp.inbound.http] auth_token), even when the whole [mcp.inbound.http] is absent.
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const inbound = dataset.value;
      if (inbound.enabled !== true || inbound.transport !== "streamable_http" || inbound.http?.auth_token) return;
      const http = inbound.http ?? {};
      addIssue({
        message: 'a bearer token (required when transport = "streamable_http"; e.g. auth_token = "@keyring")',
        received: "undefined",
        path: [
          { type: "object", origin: "value", input: inbound, key: "http", value: http },
          { type: "object", origin: "value", input: http, key: "auth_token", value: undefined },
        ],
      });
    }),
  ),
);
export type McpInboundConfig = v.InferOutput<typeof McpInboundConfig>;

/** [mcp]: the servers fermix uses, and fermix as a server itself. */
export const McpSection = lazySchema(() =>
  v.strictObject({
    servers: v.optional(v.record(v.string(), McpServerConfig)),
    inbound: v.optional(McpInboundConfig),
  }),
);
