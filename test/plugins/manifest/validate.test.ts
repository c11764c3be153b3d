import { describe, expect, test } from "bun:test";
import { validateManifest } from "../../../src/plugins/manifest/validate.ts";
import { CORE, validManifest } from "./_fixture.ts";

type Change = (m: Record<string, any>) => void;

/** Moves the first tool to the mcp rail, with `runtime` when given. */
function asMcp(m: Record<string, any>, runtime?: Record<string, unknown>): void {
  m.tools[0].rail = "mcp";
  delete m.tools[0].request;
  if (runtime) m.runtime = runtime;
}

/** [what is wrong, how to break a valid manifest, the path the issue must name]. */
const INVALID: Array<[string, Change, string]> = [
  ["unknown top-level key", (m) => (m.homepage = "x"), "homepage"],
  ["wrong schema_version", (m) => (m.schema_version = 1), "schema_version"],
  ["missing name", (m) => delete m.name, "name"],
  ["upper-case name", (m) => (m.name = "Demo"), "name"],
  ["name starting with mcp_", (m) => (m.name = "mcp_demo"), "name"],
  ["name too long", (m) => (m.name = `a${"b".repeat(64)}`), "name"],
  ["empty display_name", (m) => (m.display_name = " "), "display_name"],
  ["version not x.y.z", (m) => (m.version = "1.2"), "version"],
  ["version with pre-release", (m) => (m.version = "1.2.3-beta"), "version"],
  ["min_core_version with a v", (m) => (m.min_core_version = "v0.1.0"), "min_core_version"],
  ["min_core_version above core", (m) => (m.min_core_version = "9.0.0"), "min_core_version"],
  ["plugin_api unsupported", (m) => (m.plugin_api = 4), "plugin_api"],
  ["plugin_api not an integer", (m) => (m.plugin_api = 2.5), "plugin_api"],
  ["unknown auth type", (m) => (m.auth = { type: "basic" }), "auth.type"],
  ["oauth2 without scopes", (m) => delete m.auth.scopes, "auth.scopes"],
  ["unknown auth scheme", (m) => (m.auth.scheme = "Token"), "auth.scheme"],
  ["api_key without prompt", (m) => (m.auth = { type: "api_key", key_name: "DEMO_KEY" }), "auth.prompt"],
  ["oauth2 without health_check", (m) => delete m.health_check, "health_check"],
  ["health_check with a placeholder", (m) => (m.health_check.url = "https://api.example.com/{id}"), "health_check.url"],
  ["lower-case config key", (m) => (m.config[0].key = "allow"), "config[0].key"],
  ["unknown config kind", (m) => (m.config[0].kind = "number"), "config[0].kind"],
  ["no tools", (m) => (m.tools = []), "tools"],
  ["tool without the plugin prefix", (m) => (m.tools[0].name = "get_item"), "tools[0].name"],
  ["tool name with a space", (m) => (m.tools[0].name = "demo get"), "tools[0].name"],
  ["duplicate tool names", (m) => (m.tools[1].name = "demo_get_item"), "tools[1].name"],
  ["description over 100 bytes", (m) => (m.tools[0].description = "é".repeat(51)), "tools[0].description"],
  ["read_only missing", (m) => delete m.tools[0].read_only, "tools[0].read_only"],
  ["unknown rail", (m) => (m.tools[0].rail = "grpc"), "tools[0].rail"],
  ["parameters not an object schema", (m) => (m.tools[0].parameters.type = "array"), "tools[0].parameters.type"],
  [
    "required names an undeclared property",
    (m) => m.tools[0].parameters.required.push("nope"),
    "tools[0].parameters.required[1]",
  ],
  ["http tool without request", (m) => delete m.tools[0].request, "tools[0].request"],
  ["unknown key in request", (m) => (m.tools[0].request.timeout = 5), "tools[0].request.timeout"],
  ["unknown method", (m) => (m.tools[0].request.method = "HEAD"), "tools[0].request.method"],
  ["http URL", (m) => (m.tools[0].request.url = "http://api.example.com/items/{id}"), "tools[0].request.url"],
  [
    "userinfo in URL",
    (m) => (m.tools[0].request.url = "https://me:pw@api.example.com/items/{id}"),
    "tools[0].request.url",
  ],
  ["placeholder in host", (m) => (m.tools[0].request.url = "https://{id}.example.com/items"), "tools[0].request.url"],
  ["empty host", (m) => (m.tools[0].request.url = "https:///items/{id}"), "tools[0].request.url"],
  [
    "undeclared placeholder in path",
    (m) => (m.tools[0].request.url = "https://api.example.com/{owner}/{id}"),
    "tools[0].request.url",
  ],
  ["undeclared placeholder in query", (m) => (m.tools[0].request.query.page = "{page}"), "tools[0].request.query.page"],
  [
    "undeclared placeholder in body",
    (m) => (m.tools[1].request.body.item.tags = ["{tag}"]),
    "tools[1].request.body.item.tags[0]",
  ],
  ["placeholder in a header", (m) => (m.tools[0].request.headers["X-Id"] = "{id}"), "tools[0].request.headers.X-Id"],
  [
    "static Authorization header",
    (m) => (m.tools[0].request.headers.Authorization = "Bearer x"),
    "tools[0].request.headers.Authorization",
  ],
  ["non-2xx success", (m) => (m.tools[1].request.success = [302]), "tools[1].request.success[0]"],
  [
    "max_pages over the cap",
    (m) => (m.tools[0].request.paginate = { mode: "cursor", cursor_path: "next", cursor_param: "c", max_pages: 51 }),
    "tools[0].request.paginate.max_pages",
  ],
  [
    "cursor paging without cursor_path",
    (m) => (m.tools[0].request.paginate = { mode: "cursor", cursor_param: "c" }),
    "tools[0].request.paginate.cursor_path",
  ],
  [
    "unknown paginate mode",
    (m) => (m.tools[0].request.paginate = { mode: "offset" }),
    "tools[0].request.paginate.mode",
  ],
  ["extract with unknown key", (m) => (m.tools[0].request.extract = { pick: ["a"] }), "tools[0].request.extract.pick"],
  [
    "requires_scopes outside auth.scopes",
    (m) => (m.tools[0].requires_scopes = ["admin"]),
    "tools[0].requires_scopes[0]",
  ],
  ["requires_setting not declared", (m) => (m.tools[1].requires_setting = "OTHER"), "tools[1].requires_setting"],
  ["requires_setting not boolean", (m) => (m.config[0].kind = "text"), "tools[1].requires_setting"],
  [
    "mcp tool with a request",
    (m) => {
      m.tools[0].rail = "mcp";
      m.runtime = { kind: "node", command: "node" };
    },
    "tools[0].request",
  ],
  ["mcp tool without runtime", (m) => asMcp(m), "runtime"],
  ["runtime without mcp tools", (m) => (m.runtime = { kind: "node", command: "node" }), "runtime"],
  ["runtime command with a slash", (m) => asMcp(m, { kind: "node", command: "/usr/bin/node" }), "runtime.command"],
  ["runtime command ..", (m) => asMcp(m, { kind: "binary", command: ".." }), "runtime.command"],
  ["unknown runtime kind", (m) => asMcp(m, { kind: "ruby", command: "ruby" }), "runtime.kind"],
  ["skill named like the plugin", (m) => (m.skills[0].name = "demo"), "skills[0].name"],
  ["skill named like a bundled plugin", (m) => (m.skills[0].name = "gmail"), "skills[0].name"],
  ["skill path escaping the plugin", (m) => (m.skills[0].path = "../elsewhere"), "skills[0].path"],
  ["absolute skill path", (m) => (m.skills[0].path = "/etc"), "skills[0].path"],
  ["unknown interface key", (m) => (m.interface = { tagline: "x" }), "interface.tagline"],
  ["bad brand colour", (m) => (m.interface = { brand_color: "red" }), "interface.brand_color"],
];

describe("validateManifest", () => {
  test("accepts the base manifest and fills defaults", () => {
    const r = validateManifest(validManifest(), { coreVersion: CORE });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.manifest.tools[0]!.rail).toBe("http");
    expect(r.manifest.tools[0]!.request!.method).toBe("GET");
    expect(r.manifest.tools[0]!.request!.success).toEqual([200]);
    expect(r.manifest.auth).toMatchObject({ type: "oauth2", scheme: "Bearer" });
    expect(r.manifest.default_enabled).toBe(false);
  });

  test("has at least 30 invalid cases", () => {
    expect(INVALID.length).toBeGreaterThanOrEqual(30);
  });

  test.each(INVALID)("refuses %s", (_what, change, path) => {
    const m = validManifest();
    change(m);
    const r = validateManifest(m, { coreVersion: CORE });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const paths = r.errors.map((e) => e.path);
    expect(paths).toContain(path);
    for (const e of r.errors) expect(e.message.length).toBeGreaterThan(5);
  });

  test("reports every problem at once, schema and cross-field alike", () => {
    const m = validManifest();
    m.homepage = "x";
    m.version = "1.0";
    m.tools[0].request.url = "http://api.example.com/items/{id}";
    m.tools[1].name = "other_create";
    m.tools[1].requires_scopes = ["admin"];
    const r = validateManifest(m, { coreVersion: CORE });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path).sort()).toEqual(
      ["homepage", "tools[0].request.url", "tools[1].name", "tools[1].requires_scopes[0]", "version"].sort(),
    );
  });

  test("messages say what is wrong and what was found", () => {
    const m = validManifest();
    m.tools[0].request.url = "http://api.example.com/items/{id}";
    m.homepage = "x";
    delete m.display_name;
    const r = validateManifest(m, { coreVersion: CORE });
    if (r.ok) throw new Error("expected issues");
    const by = Object.fromEntries(r.errors.map((e) => [e.path, e.message]));
    expect(by["tools[0].request.url"]).toBe('must be https (got "http://api.example.com/items/{id}")');
    expect(by.homepage).toBe("unknown key (remove it, or check its spelling)");
    expect(by.display_name).toBe("is required");
  });

  test("expectedName and expectedVersion mismatches are issues", () => {
    const r = validateManifest(validManifest(), { expectedName: "other", expectedVersion: "2.0.0", coreVersion: CORE });
    if (r.ok) throw new Error("expected issues");
    expect(r.errors.map((e) => e.path)).toEqual(["name", "version"]);
    expect(r.errors[0]!.message).toContain('must be "other"');
  });

  test("plugin_api 3 is accepted; min_core_version compares the core's x.y.z", () => {
    const m = validManifest();
    m.plugin_api = 3;
    m.min_core_version = "0.1.0";
    expect(validateManifest(m, { coreVersion: "0.1.0-dev" }).ok).toBe(true);
    expect(validateManifest(m, { coreVersion: "0.0.9" }).ok).toBe(false);
    m.min_core_version = "0.10.0";
    expect(validateManifest(m, { coreVersion: "0.9.0" }).ok).toBe(false);
  });

  test("a manifest that is not an object is one issue at the top", () => {
    const r = validateManifest([], { coreVersion: CORE });
    if (r.ok) throw new Error("expected issues");
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toEqual({ path: "", message: "must be a JSON object (got [])" });
  });

  test("api_key auth with scheme Bot, and mcp tools with a runtime, are valid", () => {
    const m = validManifest();
    m.auth = { type: "api_key", key_name: "DEMO_TOKEN", prompt: "Token", scheme: "Bot" };
    delete m.health_check;
    for (const t of m.tools) delete t.requires_scopes;
    m.tools.push({ name: "demo_local", description: "Local.", read_only: true, rail: "mcp" });
    m.runtime = { kind: "node", command: "node", args: ["src/server.mjs"], min_version: "18" };
    const r = validateManifest(m, { coreVersion: CORE });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.manifest.auth).toMatchObject({ scheme: "Bot", header: "Authorization" });
  });
});
