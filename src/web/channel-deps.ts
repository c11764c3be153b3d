import { CHANNELS } from "../channels/registry.ts";
import type { Env } from "../config/env.ts";
import type { FermixPaths } from "../config/paths.ts";
import type { ChannelState } from "../gateway/channels-runtime-contract.ts";
import type { ChannelSetupFlags } from "../setup/channel-setup-contract.ts";
import type { SetupIo } from "../setup/prompt.ts";

/** A text field of a channel's card: an id, shown with its configured value (ids are not secrets). */
export type ChannelIdField = { key: string; label: string; value: string };
/** A secret field: a password input never pre-filled; `set` says config.toml gives one. */
export type ChannelSecretField = { key: string; label: string; set: boolean };

/** One channel's card: config.toml's word on it, the daemon's state when it runs it, and its setup fields. */
export type ChannelCard = {
  name: string;
  enabled: boolean;
  /** The running daemon's state of this channel; undefined when it does not run it. */
  state?: ChannelState;
  ids: ChannelIdField[];
  secrets: ChannelSecretField[];
  /** False when the page cannot set this channel up (its setup asks what a form does not): the CLI command. */
  editable: boolean;
};

export type ChannelCheck = { ok: true; detail: string } | { ok: false; detail: string; fix: string };

/** What the Channels page reads and does: `fermix setup --channel NAME`'s own functions. */
export type ChannelsWeb = {
  list(): Promise<ChannelCard[]>;
  /** Tests, then saves the ids and the secrets given (blank secrets keep the configured ones); the notice. */
  save(name: string, fields: Record<string, string>): Promise<string>;
  /** The adapter's check() on the channel as config.toml has it. */
  test(name: string): Promise<ChannelCheck>;
};

type Spec = {
  ids: Array<{ key: string; label: string; flag: "ownerUserId" | "phoneNumberId" }>;
  /** The secrets, in the order setup reads them piped. */
  secrets: (block: Record<string, unknown>) => Array<{ key: string; label: string }>;
  /** --bot-token-stdin (one token) or --secrets-stdin (a line each). */
  pipe: "token" | "lines";
};

const OWNER = (label: string) => ({ key: "owner_user_id", label, flag: "ownerUserId" as const });

/** The form's fields per channel; Signal's setup (signal-cli's account and path) stays in the CLI. */
const SPECS: Record<string, Spec | undefined> = {
  telegram: {
    ids: [OWNER("Your Telegram user id")],
    secrets: () => [{ key: "bot_token", label: "Bot token (from @BotFather)" }],
    pipe: "token",
  },
  discord: {
    ids: [OWNER("Your Discord user id")],
    secrets: () => [{ key: "bot_token", label: "Bot token" }],
    pipe: "token",
  },
  slack: {
    ids: [OWNER("Your Slack member id")],
    secrets: (block) => [
      { key: "bot_token", label: "Bot token (xoxb-…)" },
      block.mode === "webhook"
        ? { key: "signing_secret", label: "Signing secret" }
        : { key: "app_token", label: "App-level token (xapp-…)" },
    ],
    pipe: "lines",
  },
  whatsapp: {
    ids: [OWNER("Your WhatsApp id"), { key: "phone_number_id", label: "Phone number ID", flag: "phoneNumberId" }],
    secrets: () => [
      { key: "access_token", label: "Access token" },
      { key: "app_secret", label: "App secret" },
    ],
    pipe: "lines",
  },
};

/** The daemon's ChannelsWeb: config.toml read afresh each time, the running channels' states from the app. */
export function createChannelsWeb(deps: { env: Env; paths: FermixPaths; states: () => ChannelState[] }): ChannelsWeb {
  const quietIo = (stdin: string) => {
    let output = "";
    const io: SetupIo = {
      isTTY: false,
      input: (async function* () {
        if (stdin) yield stdin;
      })(),
      write: async (text) => {
        output += text;
      },
    };
    return { io, output: () => output };
  };
  const blocks = async () => {
    const { loadConfig } = await import("../config/load.ts");
    const config = await loadConfig(deps.paths.config);
    return (config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>;
  };
  return {
    async list() {
      const all = await blocks();
      const states = deps.states();
      return Object.keys(CHANNELS).map((name): ChannelCard => {
        const block = all[name] ?? {};
        const spec = SPECS[name];
        const state = states.find((s) => s.name === name);
        return {
          name,
          enabled: block.enabled === true,
          ...(state ? { state } : {}),
          ids: (spec?.ids ?? [OWNER("Owner id")]).map((f) => ({
            key: f.key,
            label: f.label,
            value: block[f.key] === undefined ? "" : String(block[f.key]),
          })),
          secrets: (spec?.secrets(block) ?? []).map((s) => ({ ...s, set: block[s.key] !== undefined })),
          editable: spec !== undefined,
        };
      });
    },
    async save(name, fields) {
      const spec = SPECS[name];
      if (!spec) throw new Error(`${name} is set up with fermix setup --channel ${name} on a terminal`);
      const block = (await blocks())[name] ?? {};
      const flags: ChannelSetupFlags = { channel: name, nonInteractive: true };
      for (const id of spec.ids) {
        const value = fields[id.key]?.trim();
        if (value) flags[id.flag] = value;
      }
      const secrets = spec.secrets(block).map((s) => fields[s.key]?.trim() ?? "");
      const given = secrets.filter(Boolean).length;
      if (given && given < secrets.length) {
        throw new Error(
          `give all of ${name}'s secrets together (${spec
            .secrets(block)
            .map((s) => s.key)
            .join(", ")})`,
        );
      }
      if (given) flags[spec.pipe === "token" ? "tokenStdin" : "secretsStdin"] = true;
      const { io, output } = quietIo(given ? `${secrets.join("\n")}\n` : "");
      const { runChannelSetup } = await import("../setup/channel-setup.ts");
      await runChannelSetup(flags, { env: deps.env, paths: deps.paths, io });
      const ok = /^ok: (.*)$/m.exec(output())?.[1];
      return `${name} saved${ok ? ` and tested (${ok})` : ""}; run fermix restart to apply it`;
    },
    async test(name) {
      const { openChannelSetup, checkWithAdapter } = await import("../setup/_channel-setup-flow.ts");
      const setupDeps = { env: deps.env, paths: deps.paths, io: quietIo("").io };
      const ctx = await openChannelSetup(name, { channel: name, nonInteractive: true }, setupDeps);
      return checkWithAdapter(name, ctx.block, setupDeps, ctx.secrets);
    },
  };
}
