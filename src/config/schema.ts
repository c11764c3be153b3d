import { isAbsolute } from "node:path";
import * as v from "valibot";
import { mcpServerProblems } from "../mcp/outbound/server-config.ts";
import { MemorySettings } from "../memory/memory-settings.ts";
import { observabilitySettings } from "../observability/export/export-settings.ts";
import { EFFORTS } from "../providers/types.ts";
import { CommandProfiles } from "../sandbox/command-profile-config.ts";

/**
 * config.toml, validated strictly: an unknown key or a wrong type fails the load with the file,
 * section and key named (see load.ts). Sections later capabilities read are declared with their
 * documented keys so a valid file never fails for holding them.
 */

/** A secret: plaintext, "@keyring", "$ENV_VAR", or a table naming its source. */
export const SecretRef = v.union(
  [
    v.pipe(v.string(), v.minLength(1, "a non-empty string")),
    v.strictObject({ source: v.literal("env"), name: v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)) }),
    v.strictObject({ source: v.literal("command"), command: v.pipe(v.array(v.string()), v.minLength(1)) }),
    v.strictObject({ source: v.literal("file"), path: v.string() }),
  ],
  'a secret: a string ("sk-…", "@keyring" or "$ENV_VAR") or a table with source = "env", "command" or "file"',
);
export type SecretRef = v.InferOutput<typeof SecretRef>;

const Effort = v.picklist(EFFORTS);
const HttpUrl = v.pipe(
  v.string(),
  v.url("a URL such as https://api.example.com/v1"),
  v.regex(/^https?:\/\//i, "a URL starting with http:// or https://"),
);

const providerBase = {
  primary: v.optional(v.boolean()),
  default_model: v.optional(v.pipe(v.string(), v.minLength(1))),
  base_url: v.optional(HttpUrl),
};
const keyed = { ...providerBase, api_key: v.optional(SecretRef) };
const effortCapable = { ...keyed, reasoning_effort: v.optional(Effort) };
const AuthMode = v.picklist(["api_key", "oauth"]);

// OpenRouter, Mistral and Ollama have no effort knob, so their blocks reject reasoning_effort.
export const ProvidersSection = v.strictObject({
  // Signed in with `fermix auth login --provider codex`: no api_key; `fast` asks for priority processing.
  openai_codex: v.optional(
    v.strictObject({ ...providerBase, reasoning_effort: v.optional(Effort), fast: v.optional(v.boolean()) }),
  ),
  openai: v.optional(v.strictObject({ ...effortCapable, auth_mode: v.optional(v.literal("api_key")) })),
  anthropic: v.optional(v.strictObject({ ...effortCapable, auth_mode: v.optional(AuthMode) })),
  xai: v.optional(v.strictObject({ ...effortCapable, auth_mode: v.optional(AuthMode) })),
  openrouter: v.optional(v.strictObject(keyed)),
  mistral: v.optional(v.strictObject(keyed)),
  ollama: v.optional(v.strictObject(providerBase)),
});
export type ProvidersSection = v.InferOutput<typeof ProvidersSection>;
export type ProviderBlock = {
  primary?: boolean;
  default_model?: string;
  base_url?: string;
  api_key?: SecretRef;
  reasoning_effort?: (typeof EFFORTS)[number];
  auth_mode?: string;
  fast?: boolean;
};

const Routing = v.strictObject({
  subagent_model: v.optional(v.string()),
  subagent_provider: v.optional(v.string()),
  subagent_reasoning_effort: v.optional(Effort),
  cron_model: v.optional(v.string()),
  cron_provider: v.optional(v.string()),
  cron_reasoning_effort: v.optional(Effort),
});

export const IMAGE_BACKENDS = ["openai", "xai", "google", "openai_codex"] as const;
/** web_search's backends: DuckDuckGo needs no key; each of the others reads api_key (or its own env var). */
export const WEB_SEARCH_BACKENDS = ["duckduckgo", "brave", "exa", "tavily", "firecrawl"] as const;
const Tools = v.strictObject({
  tool_search: v.optional(v.strictObject({ enabled: v.optional(v.boolean()) })),
  web_search: v.optional(
    v.strictObject({
      backend: v.optional(
        v.picklist(WEB_SEARCH_BACKENDS, 'one of "duckduckgo", "brave", "exa", "tavily" or "firecrawl"'),
      ),
      api_key: v.optional(SecretRef),
      max_results: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20))),
    }),
  ),
  /** The image tool's backend ([fermix_core.tools.generate_image]); openai and xai use their chat provider's key. */
  generate_image: v.optional(
    v.strictObject({
      backend: v.optional(v.picklist(IMAGE_BACKENDS, 'one of "openai", "xai", "google" or "openai_codex"')),
      model: v.optional(v.pipe(v.string(), v.minLength(1))),
      google_api_key: v.optional(SecretRef),
      /** The size asked for when the model names none: "1024x1024" (openai) or an aspect ratio "16:9" (xai, google). */
      size: v.optional(
        v.pipe(
          v.string(),
          v.regex(/^(\d+x\d+|\d+(\.\d+)?:\d+(\.\d+)?|auto)$/, 'a size such as "1024x1024", "16:9" or "auto"'),
        ),
      ),
      /** Another API root for the backend (a proxy, a self-hosted server); openai and xai default to their provider's. */
      base_url: v.optional(HttpUrl),
    }),
  ),
  /** The browser tool: which Chromium, headless or not, when an idle one is shut down, whether loopback pages open. */
  browser: v.optional(
    v.strictObject({
      executable: v.optional(v.pipe(v.string(), v.minLength(1))),
      headless: v.optional(v.boolean()),
      idle_minutes: v.optional(v.pipe(v.number("a number of minutes"), v.gtValue(0, "a number of minutes above 0"))),
      /** Pages on this machine (localhost, 127.0.0.1, ::1) — a dev server; other private addresses stay refused. */
      allow_loopback: v.optional(v.boolean()),
    }),
  ),
});

/** A plugin's own settings: the UPPER_SNAKE keys its manifest declares, as strings or booleans. */
const PluginSettings = v.record(
  v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]*$/, "an UPPER_SNAKE config key declared by the plugin")),
  v.union([v.string(), v.boolean()], "a quoted string or true/false"),
);

/**
 * `dev_local`: one folder, or a list of folders, whose immediate subfolders are plugins loaded in place
 * (the plugins spec, "For plugin authors"). Absolute paths only: neither a relative path nor `~/` is
 * resolved, so src/plugins/dev-local.ts needs no working directory or HOME and the CLI, doctor and a daemon
 * started by a service manager all read the same folder.
 */
const DevLocal = v.pipe(
  v.union([v.string(), v.array(v.string())], "an absolute path to a folder of plugin folders, or a list of such paths"),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const relative = (typeof dataset.value === "string" ? [dataset.value] : dataset.value).find((p) => !isAbsolute(p));
    if (relative !== undefined) {
      addIssue({
        message: "an absolute path (relative paths and ~/ are not expanded)",
        received: JSON.stringify(relative),
      });
    }
  }),
);

const Plugins = v.objectWithRest(
  {
    enabled: v.optional(v.array(v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,63}$/, "a plugin name")))),
    /** Folders whose subfolders are plugins loaded in place, for plugin authors; read through devLocalRoots. */
    dev_local: v.optional(DevLocal),
    /** One discovery attempt's deadline for an MCP-rail plugin's server (default 10). */
    discovery_timeout_seconds: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(300), v.description("whole seconds, 1 to 300")),
    ),
    /** Discovery attempts before a server is quarantined (default 5). */
    discovery_attempts: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10))),
  },
  PluginSettings,
);

const OAuthClient = v.strictObject({ client_id: v.optional(v.string()), client_secret: v.optional(SecretRef) });

/**
 * Voice notes and audio become text before a chat turn. `model` is one key shared by the backends (xai's STT
 * takes none); the openai and xai keys override the chat provider's key, deepgram's is required.
 */
export const TRANSCRIPTION_BACKENDS = ["openai", "xai", "deepgram"] as const;
const Transcription = v.strictObject({
  backend: v.optional(v.picklist(TRANSCRIPTION_BACKENDS, 'one of "openai", "xai" or "deepgram"')),
  model: v.optional(v.pipe(v.string(), v.minLength(1))),
  max_file_mb: v.optional(v.pipe(v.number("a number of megabytes"), v.gtValue(0, "a number of megabytes above 0"))),
  openai_api_key: v.optional(SecretRef),
  xai_api_key: v.optional(SecretRef),
  deepgram_api_key: v.optional(SecretRef),
  /** The backend's API root, for a self-hosted compatible server (and tests); the vendor's by default. */
  base_url: v.optional(HttpUrl),
});
export type TranscriptionConfig = v.InferOutput<typeof Transcription>;

/**
 * [fermix_core.harness]: delegating repo work to the owner's Codex / Claude Code CLI. No harness tool is offered
 * until `approved` (the one-time consent of Setup → Coding Agents); `default_vendor` narrows the run tools to one.
 */
export const HARNESS_VENDORS = ["codex", "claude"] as const;
const Count = v.pipe(v.number(), v.integer("a whole number"), v.minValue(1, "1 or more"));
const Harness = v.strictObject({
  enabled: v.optional(v.boolean()),
  approved: v.optional(v.boolean()),
  cloud_enabled: v.optional(v.boolean()),
  default_vendor: v.optional(v.picklist(HARNESS_VENDORS, '"codex" or "claude"')),
  max_active: v.optional(Count),
  default_timeout_minutes: v.optional(Count),
  inactivity_minutes: v.optional(Count),
  prompt_argv_max_kb: v.optional(Count),
  max_event_bytes: v.optional(Count),
  max_framing_errors: v.optional(Count),
  max_run_artifact_mb: v.optional(Count),
  artifact_quota_gb: v.optional(v.pipe(v.number(), v.gtValue(0, "above 0"))),
  min_free_gb: v.optional(v.pipe(v.number(), v.minValue(0, "0 or more"))),
  artifact_retention_days: v.optional(Count),
  delivery_max_attempts: v.optional(Count),
  delivery_max_age_hours: v.optional(Count),
  codex_home: v.optional(v.pipe(v.string(), v.minLength(1))),
  claude_config_dir: v.optional(v.pipe(v.string(), v.minLength(1))),
});

const Core = v.strictObject({
  profile: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9_-]+$/i, "a name of letters, digits, - or _"))),
  secret_store: v.optional(v.picklist(["keyring", "file"])),
  // `provider` is the legacy primary choice, read only when no provider block says primary = true (routes.ts).
  agent: v.optional(
    v.strictObject({
      name: v.optional(v.string()),
      provider: v.optional(
        v.picklist(
          Object.keys(ProvidersSection.entries) as (keyof ProvidersSection)[],
          `one of ${Object.keys(ProvidersSection.entries).join(", ")}`,
        ),
      ),
    }),
  ),
  personalization: v.optional(
    v.strictObject({
      user_name: v.optional(v.string()),
      timezone: v.optional(v.string()),
      communication_style: v.optional(v.string()),
    }),
  ),
  providers: v.optional(ProvidersSection),
  routing: v.optional(Routing),
  tools: v.optional(Tools),
  transcription: v.optional(Transcription),
  harness: v.optional(Harness),
  plugins: v.optional(Plugins),
  plugin_secrets: v.optional(v.record(v.string(), SecretRef)),
  oauth: v.optional(v.record(v.string(), OAuthClient)),
  compaction: v.optional(
    v.strictObject({
      enabled: v.optional(v.boolean()),
      threshold: v.optional(v.pipe(v.number(), v.minValue(0.1), v.maxValue(1))),
    }),
  ),
  upgrade: v.optional(
    v.strictObject({
      releases_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL to releases.json"))),
    }),
  ),
  jobs: v.optional(
    v.strictObject({
      run_freshness_window_seconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      network_readiness_enabled: v.optional(v.boolean()),
      default_delivery: v.optional(v.picklist(["none", "local", "origin", "channel"])),
    }),
  ),
  memory: v.optional(MemorySettings),
  observability: v.optional(observabilitySettings(SecretRef)),
});

const Sandbox = v.strictObject({
  mode: v.optional(v.picklist(["strict", "standard", "open"])),
  workspace_root: v.optional(v.string()),
  allowed_roots: v.optional(v.array(v.string())),
  blocked_roots: v.optional(v.array(v.string())),
  // [sandbox.commands.<name>]: command profiles, each a cmd_<name> tool (src/sandbox/command-profiles.ts).
  commands: v.optional(CommandProfiles),
});

/**
 * [mcp.servers.<name>]: an MCP server the owner wired in, run over stdio (`command`) or reached over streamable
 * HTTP (`url`, loopback allowed). Its tools are `mcp_<name>_<tool>`, class `policy_class` (default
 * "external_api"), overridable per tool in [mcp.servers.<name>.tools.<tool>]. Checks: src/mcp/outbound/server-config.ts.
 */
const McpPolicyClass = v.picklist(
  ["read_only", "read_write", "exec", "network", "external_api"],
  '"read_only", "read_write", "exec", "network" or "external_api"',
);
const McpServer = v.pipe(
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
    if (dataset.typed) for (const problem of mcpServerProblems(dataset.value)) addIssue(problem);
  }),
);

/** A platform user id: Telegram's are integers, written in TOML as an integer or a string; kept as a string. */
const PlatformId = v.pipe(
  v.union([v.pipe(v.number(), v.integer(), v.transform(String)), v.pipe(v.string(), v.trim(), v.minLength(1))]),
  v.string(),
);

/** What every chat channel takes: who may talk to it, which commands guests get, how replies stream. */
const channelBase = {
  enabled: v.optional(v.boolean()),
  owner_user_id: v.optional(PlatformId),
  command_allowlist: v.optional(v.array(v.string())),
  streaming: v.optional(v.picklist(["off", "draft", "block"])),
  album_debounce_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000))),
};

const Telegram = v.strictObject({
  ...channelBase,
  // Never from an environment variable: one exported token made two installs poll the same bot (409s).
  bot_token: v.optional(SecretRef),
  allowed_user_ids: v.optional(v.array(PlatformId)),
  bot_name: v.optional(v.string()),
  api_base_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL such as https://api.telegram.org"))),
});
export type TelegramConfig = v.InferOutput<typeof Telegram>;

/**
 * A Signal address: a phone number in international form, or an account's UUID. A number written as a bare TOML
 * integer (owner_user_id = +15551234567) arrives without its "+", which signal-cli always gives: put back here.
 */
const SignalAddress = v.pipe(
  v.union([
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.transform((n) => `+${n}`),
    ),
    v.pipe(v.string(), v.trim(), v.minLength(1)),
  ]),
  v.string(),
);

const Signal = v.strictObject({
  ...channelBase,
  owner_user_id: v.optional(SignalAddress),
  allowed_sender_ids: v.optional(v.array(SignalAddress)),
  // The account registered or linked in signal-cli that fermix answers as (a numberless account: its UUID).
  account: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(
        /^(\+[1-9]\d{5,17}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i,
        "the signal-cli account: its phone number in international form, such as +15551234567",
      ),
    ),
  ),
  cli_path: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
  // signal-cli's --config directory, where it keeps the account and the attachments it received.
  data_dir: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
});
export type SignalConfig = v.InferOutput<typeof Signal>;

const Discord = v.strictObject({
  ...channelBase,
  bot_token: v.optional(SecretRef),
  // The bot's own user id: mentions of it address the bot; checked against GET /users/@me (filled in by setup).
  bot_user_id: v.optional(PlatformId),
  allowed_user_ids: v.optional(v.array(PlatformId)),
  // REST base without the version (https://discord.com/api) and the gateway's websocket URL, for a test endpoint.
  api_base_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL such as https://discord.com/api"))),
  gateway_url: v.optional(
    v.pipe(
      v.string(),
      v.url("must be an absolute URL such as wss://gateway.discord.gg"),
      v.regex(/^wss?:\/\//i, "a websocket URL starting with wss:// or ws://"),
    ),
  ),
});
export type DiscordConfig = v.InferOutput<typeof Discord>;

const WhatsApp = v.strictObject({
  ...channelBase,
  // The Cloud API's permanent (system user) access token, the app secret that signs webhooks, and the verify token
  // Meta echoes when the webhook is registered.
  access_token: v.optional(SecretRef),
  app_secret: v.optional(SecretRef),
  verify_token: v.optional(SecretRef),
  phone_number_id: v.optional(PlatformId),
  graph_version: v.optional(v.pipe(v.string(), v.regex(/^v\d+\.\d+$/, "a Graph API version such as v25.0"))),
  allowed_sender_ids: v.optional(v.array(PlatformId)),
  api_base_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL such as https://graph.facebook.com"))),
});
export type WhatsAppConfig = v.InferOutput<typeof WhatsApp>;

const Slack = v.strictObject({
  ...channelBase,
  // Socket Mode (the default) needs the app-level token and no public URL; webhook mode needs the signing secret.
  mode: v.optional(v.picklist(["socket", "webhook"])),
  bot_token: v.optional(SecretRef),
  app_token: v.optional(SecretRef),
  signing_secret: v.optional(SecretRef),
  allowed_user_ids: v.optional(v.array(PlatformId)),
  // The Web API's base (Socket Mode's wss URL comes from its apps.connections.open), for a test endpoint.
  api_base_url: v.optional(v.pipe(v.string(), v.url("must be an absolute URL such as https://slack.com/api/"))),
});
export type SlackConfig = v.InferOutput<typeof Slack>;

const Port = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(1024, "must be 1024-65535"),
  v.maxValue(65535, "must be 1024-65535"),
);

/**
 * [mcp.inbound]: fermix as an MCP server (`fermix mcp serve` on stdio, or streamable HTTP on the web listener).
 * What it exposes is decided in src/mcp/inbound/exposed-tools.ts; the bearer is required for HTTP because any
 * local process can reach a loopback port.
 */
const McpInboundTool = v.strictObject({
  exposed: v.optional(v.boolean()),
  description_override: v.optional(v.pipe(v.string(), v.minLength(1))),
});
const McpInbound = v.pipe(
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
);
export type McpInboundConfig = v.InferOutput<typeof McpInbound>;

export const Config = v.strictObject({
  fermix_core: v.optional(Core),
  fermix_web: v.optional(
    v.strictObject({
      /** The local setup page, on 127.0.0.1 only. */
      port: v.optional(Port),
      /** Whether the daemon serves the setup page (default true). */
      enabled: v.optional(v.boolean()),
      /** The chat platforms' webhooks, on their own loopback port. */
      webhook_port: v.optional(Port),
    }),
  ),
  sandbox: v.optional(Sandbox),
  mcp: v.optional(
    v.strictObject({ servers: v.optional(v.record(v.string(), McpServer)), inbound: v.optional(McpInbound) }),
  ),
  // The other platforms' blocks stay opaque tables until their adapters arrive.
  fermix_channels: v.optional(
    v.objectWithRest(
      {
        telegram: v.optional(Telegram),
        discord: v.optional(Discord),
        whatsapp: v.optional(WhatsApp),
        signal: v.optional(Signal),
        slack: v.optional(Slack),
      },
      v.record(v.string(), v.unknown()),
    ),
  ),
});
export type Config = v.InferOutput<typeof Config>;
