import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { serviceBinary } from "../service/self.ts";
import type { SetupFlags } from "../setup/answers.ts";
import type { SetupIo } from "../setup/prompt.ts";
import { runSetup } from "../setup/run-setup.ts";
import type { ParsedArgs } from "./args.ts";
import { defineCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";

export default defineCommand({
  meta: {
    name: "setup",
    usage:
      "setup [--provider NAME --model M --api-key-stdin|--api-key-env VAR --effort LEVEL] [--name N --user-name U --timezone TZ --communication-style TEXT] [--no-service] [--yes] | setup --transcription-backend openai|xai|deepgram [--transcription-model M] [--transcription-api-key-stdin] | setup --channel telegram [--owner-user-id ID] [--bot-token-stdin] | setup --channel signal [--account +NUMBER] [--owner-user-id +NUMBER] [--cli-path PATH] | setup --channel whatsapp [--owner-user-id NUMBER] [--phone-number-id ID] [--secrets-stdin] | setup --channel discord [--owner-user-id ID] [--bot-token-stdin] | setup --channel slack [--mode socket|webhook] [--owner-user-id U…] [--secrets-stdin] | setup --migrate-secrets | setup --web [--no-browser] | setup --rotate-token",
    description: "Choose and test a provider, personalise, install the service",
    // Words reach run, which refuses them without repeating them: a stray word is most likely a pasted key.
    takesWords: true,
    details: [
      "Choose a model provider and test it (and its reasoning effort, where the model takes one), store its key",
      "in the keychain (or the 0600 file store), set the assistant's name, yours, your time zone and how it",
      "should talk to you, and install the service — or rewrite it",
      "when it drifted from what this binary writes. Asks on a terminal; with --yes (or no terminal),",
      "flags and the current config.toml answer, and a missing answer names its flag. Safe to re-run.",
      "The API key is never taken from the command line.",
      "--transcription-backend sets up voice-note transcription instead: the service, its model (a switch takes the",
      "new service's default; SpaceXAI's takes none) and, piped with --transcription-api-key-stdin, its own key.",
      "--channel telegram sets up the Telegram bot instead: your user id and the bot token (piped with",
      "--bot-token-stdin, or typed without echo), tested with getMe, then enabled in config.toml.",
      "--channel signal sets up Signal through signal-cli: the account registered or linked there, your own",
      "number, and where signal-cli is; signal-cli is asked that it has the account, then config.toml is edited.",
      "--channel whatsapp sets up the WhatsApp Cloud API: your number, the Phone number ID, the access token and",
      "the app secret (piped with --secrets-stdin, one a line, or typed without echo), tested with Graph.",
      "--channel discord sets up the Discord bot: your user id and the bot token (piped with --bot-token-stdin,",
      "or typed without echo), tested with GET /users/@me, then enabled in config.toml with the bot's id.",
      "--channel slack sets up the Slack app: Socket Mode (or --mode webhook), your member id, the bot token and",
      "the app-level token or signing secret (piped with --secrets-stdin, one a line), tested with auth.test.",
    ].join("\n"),
  },
  args: {
    provider: {
      type: "string",
      valueHint: "NAME",
      description: "openai_codex, openai, anthropic, xai, openrouter, mistral or ollama; made primary",
    },
    model: { type: "string", valueHint: "MODEL", description: "its default model (the provider's default otherwise)" },
    "base-url": { type: "string", valueHint: "URL", description: "the provider's API URL (Ollama's server URL)" },
    "api-key-stdin": { type: "boolean", description: "read the API key from stdin (no echo on a terminal)" },
    "api-key-env": { type: "string", valueHint: "VAR", description: "read the API key from the variable VAR" },
    "skip-test": { type: "boolean", description: "save the answers without testing the provider" },
    name: { type: "string", valueHint: "NAME", description: "the assistant's name (default fermix)" },
    "user-name": { type: "string", valueHint: "NAME", description: "your name" },
    timezone: { type: "string", valueHint: "TZ", description: "your IANA time zone (default America/New_York)" },
    "communication-style": {
      type: "string",
      valueHint: "TEXT",
      description: 'how the assistant should talk to you ("brief and direct")',
    },
    effort: {
      type: "string",
      valueHint: "LEVEL",
      description: "reasoning effort, for OpenAI, Codex, Anthropic and SpaceXAI: a level the model accepts",
    },
    "transcription-backend": {
      type: "string",
      valueHint: "NAME",
      description: "set up voice-note transcription: openai, xai or deepgram",
    },
    "transcription-model": {
      type: "string",
      valueHint: "MODEL",
      description: "with --transcription-backend: its model (the service's default otherwise)",
    },
    "transcription-api-key-stdin": {
      type: "boolean",
      description: "with --transcription-backend: read its own key from stdin (no echo on a terminal)",
    },
    // Declared only to be refused without echoing the value: a key never goes on the command line.
    "transcription-api-key": {
      type: "string",
      valueHint: "-",
      description: "refused: use --transcription-api-key-stdin",
    },
    service: { type: "boolean", description: "install or heal the service (the default; --no-service skips it)" },
    system: { type: "boolean", description: "the system-wide service instead of the user one (needs root)" },
    "non-interactive": { type: "boolean", description: "ask nothing; flags and config.toml answer" },
    yes: { type: "boolean", alias: "y", description: "the same as --non-interactive" },
    channel: {
      type: "string",
      valueHint: "NAME",
      description: "set up a chat channel (telegram, signal, whatsapp, discord, slack) instead of a provider",
    },
    "owner-user-id": { type: "string", valueHint: "ID", description: "with --channel: your own user id on it" },
    account: {
      type: "string",
      valueHint: "+NUMBER",
      description: "with --channel signal: the signal-cli account fermix answers as",
    },
    "cli-path": { type: "string", valueHint: "PATH", description: "with --channel signal: where signal-cli is" },
    "phone-number-id": {
      type: "string",
      valueHint: "ID",
      description: "with --channel whatsapp: the business number's Phone number ID",
    },
    "secrets-stdin": {
      type: "boolean",
      description:
        "with --channel whatsapp or slack: read the secrets from stdin, one a line (whatsapp: the access token, then the app secret; slack: the bot token, then the app-level token or signing secret)",
    },
    mode: {
      type: "string",
      valueHint: "MODE",
      description: "with --channel slack: socket (Socket Mode, the default) or webhook",
    },
    "bot-token-stdin": {
      type: "boolean",
      description: "with --channel: read the bot token from stdin (no echo on a terminal)",
    },
    web: { type: "boolean", description: "open the local setup page: mints a one-time launch link (15 min)" },
    browser: {
      type: "boolean",
      description: "with --web: open the browser (the default; --no-browser prints the link)",
    },
    "rotate-token": { type: "boolean", description: "replace the setup page's token: every browser is logged out" },
    "migrate-secrets": {
      type: "boolean",
      description: 'only move plaintext secrets in config.toml to the keychain, as "@keyring"',
    },
  },
  async run({ args }) {
    // Not echoed back: a stray word here is most likely a pasted key.
    if (args._.length) {
      throw UsageError(
        "setup takes options only; an API key is never read from the command line (--api-key-stdin or --api-key-env VAR)",
      );
    }
    const env = processEnv();
    if (args["migrate-secrets"] === true) return migrate(env);
    if (args["rotate-token"] === true) return (await import("./_setup-web.ts")).rotateWebToken(env);
    if (args.web === true) return (await import("./_setup-web.ts")).setupWeb(env, { browser: args.browser !== false });
    if (args["transcription-api-key"] !== undefined) {
      throw UsageError(
        "setup: --transcription-api-key: a key is never taken from the command line; pipe it with --transcription-api-key-stdin",
      );
    }
    if (TRANSCRIPTION_FLAGS.some((flag) => args[flag] !== undefined && args[flag] !== false)) {
      return transcription(args, env);
    }
    if (typeof args.channel === "string") return channel(args, env);
    if (args["owner-user-id"] !== undefined || args["bot-token-stdin"] === true) {
      throw UsageError("setup: --owner-user-id and --bot-token-stdin go with --channel NAME");
    }
    if (args.account !== undefined || args["cli-path"] !== undefined) {
      throw UsageError("setup: --account and --cli-path go with --channel signal");
    }
    if (args["phone-number-id"] !== undefined || args["secrets-stdin"] === true) {
      throw UsageError(
        "setup: --phone-number-id and --secrets-stdin go with --channel whatsapp (--secrets-stdin also slack)",
      );
    }
    if (args.mode !== undefined) throw UsageError("setup: --mode goes with --channel slack");
    const io = await terminalIo();
    const outcome = await runSetup(setupFlags(args), {
      env,
      paths: fermixPaths(resolveHome(env)),
      io,
      service: { binary: serviceBinary },
    });
    const { offerWebLink } = await import("./_setup-web.ts");
    await offerWebLink(env, { browser: io.isTTY && args.browser !== false, serviceStarted: outcome.serviceStarted });
    return EXIT.ok;
  },
});

const PROVIDER_FLAGS = [
  "provider",
  "model",
  "base-url",
  "api-key-stdin",
  "api-key-env",
  "name",
  "user-name",
  "timezone",
  "communication-style",
  "effort",
];

const TRANSCRIPTION_FLAGS = ["transcription-backend", "transcription-model", "transcription-api-key-stdin"];

/** `setup --transcription-backend`: voice-note transcription and its key; nothing else. */
async function transcription(args: ParsedArgs, env: Record<string, string | undefined>): Promise<number> {
  const other = [...PROVIDER_FLAGS, "channel", "skip-test"].find((f) => args[f] !== undefined && args[f] !== false);
  if (other)
    throw UsageError(`setup: --transcription-backend sets up only transcription; run setup without it for --${other}`);
  const { runTranscriptionSetup } = await import("../setup/transcription-setup.ts");
  const text = (name: string) => (typeof args[name] === "string" ? (args[name] as string) : undefined);
  await runTranscriptionSetup(
    {
      backend: text("transcription-backend"),
      model: text("transcription-model"),
      apiKeyStdin: args["transcription-api-key-stdin"] === true,
    },
    { env, paths: fermixPaths(resolveHome(env)), io: await terminalIo() },
  );
  return EXIT.ok;
}

/** `setup --channel telegram`: the bot token and the owner, tested, then enabled in config.toml; nothing else. */
async function channel(args: ParsedArgs, env: Record<string, string | undefined>): Promise<number> {
  const other = PROVIDER_FLAGS.find((flag) => args[flag] !== undefined && args[flag] !== false);
  if (other) throw UsageError(`setup: --channel sets up only the channel; run setup without it for --${other}`);
  const { runChannelSetup } = await import("../setup/channel-setup.ts");
  await runChannelSetup(
    {
      channel: args.channel as string,
      ownerUserId: typeof args["owner-user-id"] === "string" ? args["owner-user-id"] : undefined,
      tokenStdin: args["bot-token-stdin"] === true,
      account: typeof args.account === "string" ? args.account : undefined,
      cliPath: typeof args["cli-path"] === "string" ? args["cli-path"] : undefined,
      phoneNumberId: typeof args["phone-number-id"] === "string" ? args["phone-number-id"] : undefined,
      secretsStdin: args["secrets-stdin"] === true,
      mode: typeof args.mode === "string" ? args.mode : undefined,
      skipTest: args["skip-test"] === true,
      nonInteractive: args["non-interactive"] === true || args.yes === true,
    },
    { env, paths: fermixPaths(resolveHome(env)), io: await terminalIo() },
  );
  return EXIT.ok;
}

/** `setup --migrate-secrets`: plaintext secrets in config.toml to the keychain, nothing else. */
async function migrate(env: Record<string, string | undefined>): Promise<number> {
  const [{ loadConfig }, { createSecretStore }, { migrateSecrets }] = await Promise.all([
    import("../config/load.ts"),
    import("../config/secret-store.ts"),
    import("../setup/migrate-secrets.ts"),
  ]);
  const paths = fermixPaths(resolveHome(env));
  const core = (await loadConfig(paths.config)).fermix_core;
  const store = createSecretStore({
    secretsDir: paths.secrets,
    profile: core?.profile,
    prefer: core?.secret_store === "file" ? "file" : undefined,
  });
  const { moved, failed } = await migrateSecrets({
    file: paths.config,
    store,
    secrets: { env, secretsDir: paths.secrets, profile: core?.profile },
  });
  const lines = moved.map(
    (m) =>
      `moved [${m.table}] ${m.key} to ${m.where === "keyring" ? "the OS keyring" : `the file store (${paths.secrets}, 0600)`} as ${m.slot}; config.toml now says "@keyring"`,
  );
  for (const f of failed) lines.push(`kept [${f.table}] ${f.key} in plain text: ${f.reason}`);
  if (!moved.length && !failed.length) lines.push(`${paths.config} holds no plaintext secrets; nothing to move`);
  await writeOut(`${lines.map((l) => `fermix: ${l}`).join("\n")}\n`);
  return failed.length ? EXIT.error : EXIT.ok;
}

function setupFlags(args: ParsedArgs): SetupFlags {
  const text = (name: string) => (typeof args[name] === "string" ? (args[name] as string) : undefined);
  return {
    provider: text("provider"),
    model: text("model"),
    baseUrl: text("base-url"),
    apiKeyStdin: args["api-key-stdin"] === true,
    apiKeyEnv: text("api-key-env"),
    skipTest: args["skip-test"] === true,
    name: text("name"),
    userName: text("user-name"),
    timezone: text("timezone"),
    communicationStyle: text("communication-style"),
    // Checked in answers.ts: a known level, and one the chosen model accepts.
    effort: text("effort") as SetupFlags["effort"],
    service: typeof args.service === "boolean" ? args.service : undefined,
    system: args.system === true,
    nonInteractive: args["non-interactive"] === true || args.yes === true,
  };
}

/**
 * The real terminal: questions only when stdin and stdout both are one; raw mode keeps a typed key off the
 * screen. There, consola draws the choices, confirmations and status lines — unless the terminal reports no
 * width (a bare pty), where its prompt cannot lay out a line and the plain questions are asked instead.
 */
async function terminalIo(): Promise<SetupIo> {
  const { isatty } = await import("node:tty");
  const stdinTTY = isatty(0);
  const isTTY = stdinTTY && isatty(1);
  const setRawMode = stdinTTY ? (raw: boolean) => process.stdin.setRawMode(raw) : undefined;
  if (isTTY && (process.stdout.columns ?? 0) > 0) {
    const { createTerminalUi, terminalInput } = await import("../setup/terminal-ui.ts");
    return { input: terminalInput(process.stdin), write: writeOut, isTTY, setRawMode, ui: createTerminalUi(writeOut) };
  }
  return { input: process.stdin, write: writeOut, isTTY, setRawMode };
}
