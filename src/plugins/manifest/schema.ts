import * as v from "valibot";

/**
 * The shape of `plugin.json`. Every object is strict: a misspelt key must fail loudly rather than be
 * ignored, because an ignored `requires_scopes` or `read_only` would quietly change what a tool may do.
 * Messages are predicates ("must be …"); `issues.ts` adds the path and what was found.
 * Cross-field rules (tool name prefixes, scopes ⊆ auth.scopes, templates, …) live in `checks.ts`.
 */

export const PLUGIN_NAME = /^[a-z][a-z0-9_]{0,63}$/;
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const CONFIG_KEY = /^[A-Z][A-Z0-9_]*$/;
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;
const SKILL_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DOTTED_NUMBER = /^\d+(\.\d+)*$/;
const COLOR = /^#[0-9A-Fa-f]{6}$/;
const TOKEN = /^[a-z][a-z0-9_-]{0,31}$/;

/** Tool descriptions sit in every prompt that lists the plugin; the cap is in bytes so non-ASCII text cannot sneak past it. */
export const TOOL_DESCRIPTION_MAX_BYTES = 100;
export const MAX_PAGES_CAP = 50;

const text = (what = "a string") => v.pipe(v.string(`must be ${what}`), v.trim(), v.minLength(1, "must not be empty"));
const bool = v.boolean("must be true or false");
const strings = (what: string) => v.array(v.string(`must be ${what}`), `must be a list of ${what}s`);
const semver = v.pipe(v.string("must be a version string"), v.regex(SEMVER, "must be a version x.y.z such as 1.0.0"));
const url = v.pipe(v.string("must be a URL"), v.regex(/^https:\/\//, "must be an https:// URL"));

const Runtime = v.strictObject({
  kind: v.picklist(["node", "python", "binary"], 'must be "node", "python" or "binary"'),
  // Run from PATH (or bin/<target>/ when vendored), never a path: a manifest must not point at files outside the plugin.
  command: v.pipe(
    v.string("must be a command name"),
    v.check(
      (c) => c.length > 0 && !/[/\\\s]/.test(c) && c !== "." && c !== "..",
      "must be a bare command name such as node (no /, no spaces)",
    ),
  ),
  args: v.optional(strings("a string"), []),
  vendored: v.optional(bool, false),
  min_version: v.optional(
    v.pipe(v.string("must be a version"), v.regex(DOTTED_NUMBER, "must be a dotted number such as 18 or 3.11")),
  ),
  pass_env: v.optional(
    v.array(
      v.pipe(
        v.string("must be an environment variable name"),
        v.regex(ENV_NAME, "must be an environment variable name such as HOME"),
      ),
      "must be a list of environment variable names",
    ),
    [],
  ),
});

const Interface = v.strictObject({
  short_description: v.optional(v.pipe(text(), v.maxLength(80, "must be at most 80 characters"))),
  long_description: v.optional(text()),
  developer_name: v.optional(text()),
  brand_color: v.optional(v.pipe(v.string("must be a colour"), v.regex(COLOR, "must be a colour such as #1A2B3C"))),
  // A file inside the plugin (checked by validatePluginDir), so the setup page never loads remote images.
  logo: v.optional(text("a path inside the plugin such as assets/logo.svg")),
  icon: v.optional(v.pipe(v.string("must be an icon name"), v.regex(TOKEN, "must be an icon name such as mail"))),
  website_url: v.optional(url),
  privacy_policy_url: v.optional(url),
});

const scheme = v.optional(v.picklist(["Bearer", "Bot"], 'must be "Bearer" or "Bot"'), "Bearer");

const Auth = v.variant(
  "type",
  [
    v.strictObject({ type: v.literal("none") }),
    v.strictObject({
      type: v.literal("oauth2"),
      provider: v.pipe(v.string("must be a provider name"), v.regex(TOKEN, "must be a provider name such as google")),
      scopes: strings("a scope string"),
      scheme,
    }),
    v.strictObject({
      type: v.literal("api_key"),
      key_name: v.pipe(v.string("must be a name"), v.regex(CONFIG_KEY, "must be UPPER_SNAKE such as SLACK_BOT_TOKEN")),
      header: v.optional(
        v.pipe(
          v.string("must be a header name"),
          v.regex(/^[A-Za-z0-9-]+$/, "must be a header name such as Authorization"),
        ),
        "Authorization",
      ),
      prompt: text(),
      help_url: v.optional(url),
      scheme,
    }),
  ],
  'must be "none", "oauth2" or "api_key"',
);

const ConfigEntry = v.strictObject({
  key: v.pipe(v.string("must be a key"), v.regex(CONFIG_KEY, "must be UPPER_SNAKE such as VAULT_PATH")),
  prompt: text(),
  required: v.optional(bool, false),
  kind: v.optional(v.picklist(["text", "boolean"], 'must be "text" or "boolean"'), "text"),
});

/** A JSON Schema for the tool's arguments. Only the top level is fermix's business; the rest is passed on as is. */
const Parameters = v.looseObject({
  type: v.literal("object", 'must be "object"'),
  properties: v.optional(
    v.record(v.string(), v.looseObject({}, "must be a JSON Schema object"), "must be an object of parameter schemas"),
    {},
  ),
  required: v.optional(strings("a parameter name")),
});

const JsonValue = v.unknown();

const Paginate = v.strictObject({
  mode: v.picklist(["cursor", "id_window"], 'must be "cursor" or "id_window"'),
  cursor_path: v.optional(text("a dotted path such as response_metadata.next_cursor")),
  cursor_param: v.optional(text("a parameter name")),
  cursor_in: v.optional(v.picklist(["query", "body"], 'must be "query" or "body"'), "query"),
  id_field: v.optional(text("a field name"), "id"),
  items_path: v.optional(text("a dotted path such as items")),
  max_pages: v.optional(
    v.pipe(
      v.number("must be a number"),
      v.integer("must be a whole number"),
      v.minValue(1, "must be at least 1"),
      v.maxValue(MAX_PAGES_CAP, `must be at most ${MAX_PAGES_CAP}`),
    ),
    10,
  ),
});

const Request = v.strictObject({
  method: v.optional(
    v.picklist(["GET", "POST", "PUT", "PATCH", "DELETE"], "must be GET, POST, PUT, PATCH or DELETE"),
    "GET",
  ),
  url: v.string("must be an https:// URL"),
  query: v.optional(
    v.record(
      v.string(),
      v.union([v.string(), v.number(), v.boolean()]),
      "must be an object of string, number or boolean values",
    ),
  ),
  headers: v.optional(v.record(v.string(), v.string("must be a string"), "must be an object of header strings")),
  body: v.optional(JsonValue),
  success: v.optional(
    v.array(
      v.pipe(v.number(), v.integer(), v.minValue(200), v.maxValue(299, "must be a 2xx status")),
      "must be a list of 2xx status codes",
    ),
    [200],
  ),
  extract: v.optional(
    v.strictObject({ path: v.optional(text("a dotted path")), fields: v.optional(strings("a field name")) }),
  ),
  paginate: v.optional(Paginate),
});

const Tool = v.strictObject({
  name: v.pipe(
    v.string("must be a tool name"),
    v.regex(TOOL_NAME, "must be letters, digits, _ or -, at most 64 characters"),
  ),
  description: v.pipe(
    text(),
    v.check(
      (d) => new TextEncoder().encode(d).length <= TOOL_DESCRIPTION_MAX_BYTES,
      `must be at most ${TOOL_DESCRIPTION_MAX_BYTES} bytes`,
    ),
  ),
  read_only: bool,
  rail: v.optional(v.picklist(["http", "mcp"], 'must be "http" or "mcp"'), "http"),
  parameters: v.optional(Parameters, { type: "object", properties: {} }),
  request: v.optional(Request),
  requires_scopes: v.optional(strings("a scope string")),
  requires_setting: v.optional(
    v.pipe(v.string("must be a config key"), v.regex(CONFIG_KEY, "must be a config key such as ALLOW_WRITES")),
  ),
});

const Skill = v.strictObject({
  name: v.pipe(
    v.string("must be a skill name"),
    v.regex(SKILL_NAME, "must be lowercase letters, digits, - or _, starting with a letter"),
  ),
  path: text("a folder inside the plugin such as skills/notes"),
});

/** A request fermix makes to check a connection, with no parameters; `account_path` names the connected account. */
const HealthCheck = v.strictObject({
  method: v.optional(v.picklist(["GET", "POST"], "must be GET or POST"), "GET"),
  url: v.string("must be an https:// URL"),
  headers: v.optional(v.record(v.string(), v.string("must be a string"), "must be an object of header strings")),
  success: v.optional(
    v.array(
      v.pipe(v.number(), v.integer(), v.minValue(200), v.maxValue(299, "must be a 2xx status")),
      "must be a list of 2xx status codes",
    ),
    [200],
  ),
  account_path: v.optional(text("a dotted path such as login")),
});

export const Manifest = v.strictObject({
  schema_version: v.literal(2, "must be 2"),
  name: v.pipe(
    v.string("must be a plugin name"),
    v.regex(PLUGIN_NAME, "must be lowercase letters, digits or _, starting with a letter, at most 64 characters"),
    // mcp_… is where hand-configured [mcp.servers] tools live; a plugin there would shadow them.
    v.check((n) => !n.startsWith("mcp_"), 'must not start with "mcp_" (reserved for [mcp.servers])'),
  ),
  display_name: text(),
  description: text(),
  category: v.pipe(v.string("must be a category"), v.regex(TOKEN, "must be a lowercase category such as productivity")),
  version: semver,
  min_core_version: semver,
  plugin_api: v.pipe(v.number("must be a number"), v.integer("must be a whole number")),
  runtime: v.optional(Runtime),
  default_enabled: v.optional(bool, false),
  interface: v.optional(Interface),
  auth: v.optional(Auth, { type: "none" }),
  config: v.optional(v.array(ConfigEntry, "must be a list of config entries"), []),
  tools: v.pipe(v.array(Tool, "must be a list of tools"), v.minLength(1, "must declare at least one tool")),
  skills: v.optional(v.array(Skill, "must be a list of skills"), []),
  health_check: v.optional(HealthCheck),
});
export type Manifest = v.InferOutput<typeof Manifest>;
export type ManifestTool = Manifest["tools"][number];
export type ManifestRequest = NonNullable<ManifestTool["request"]>;
