import { SLACK_SECRET_SLOTS } from "../config/secret-slots.ts";
import { DEFAULT_WEBHOOK_PORT } from "../config/sections/web.ts";
import {
  askAnswer,
  askSecrets,
  checkWithAdapter,
  openChannelSetup,
  probe,
  refuseFlags,
  report,
  type SecretSpec,
  SIGNAL_FLAGS,
  saveChannel,
  WHATSAPP_FLAGS,
} from "./_channel-setup-flow.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup-contract.ts";
import { type Checked, orUsage } from "./validate.ts";

type Mode = "socket" | "webhook";
type SecretKey = keyof typeof SLACK_SECRET_SLOTS;
const MAX_SECRET_CHARS = 1024;

const QUESTIONS: Record<SecretKey, string> = {
  bot_token: "Bot User OAuth Token (xoxb-…, OAuth & Permissions)",
  app_token: "App-level token (xapp-…, Basic Information → App-Level Tokens)",
  signing_secret: "Signing Secret (Basic Information → App Credentials)",
};
const SECRETS = Object.fromEntries(
  (Object.keys(QUESTIONS) as SecretKey[]).map((key): [SecretKey, SecretSpec] => [
    key,
    { key, slot: SLACK_SECRET_SLOTS[key], question: QUESTIONS[key], check: (answer) => checkSecret(answer, key) },
  ]),
) as Record<SecretKey, SecretSpec>;

/**
 * `fermix setup --channel slack`: the transport (Socket Mode unless `--mode webhook`), your own member id, and the
 * app's secrets — the bot token, then the app-level token (Socket Mode) or the signing secret (webhook mode) — piped
 * with --secrets-stdin, one a line, or typed without echo. They are tested with the adapter's own check (auth.test,
 * and apps.connections.open for the app-level token) before anything is written; then the secrets go to the secret
 * store and [fermix_channels.slack] gets enabled = true, the mode, the owner and "@keyring" references.
 */
export async function runSlackSetup(flags: ChannelSetupFlags, deps: ChannelSetupDeps): Promise<void> {
  refuseFlags(flags, [
    [
      ["tokenStdin"],
      "setup: --channel slack reads its secrets with --secrets-stdin (the bot token, then the app-level token or the signing secret)",
    ],
    SIGNAL_FLAGS,
    WHATSAPP_FLAGS,
  ]);
  if (flags.mode !== undefined) orUsage(checkMode(flags.mode), "--mode");
  if (flags.ownerUserId !== undefined) orUsage(checkMemberId(flags.ownerUserId), "--owner-user-id");
  const ctx = await openChannelSetup("slack", flags, deps);
  const { block, ask } = ctx;
  if (ctx.interactive) {
    await deps.io.write(
      "fermix setup --channel slack: from your Slack app (api.slack.com/apps) its tokens, and your own member id (your profile → ⋮ → Copy member ID).\n",
    );
  }
  const mode = await askAnswer(
    {
      given: flags.mode,
      flag: "--mode",
      current: block.mode === "webhook" ? "webhook" : "socket",
      question: "Socket Mode (no public URL needed) or webhook (a tunnel to the webhook port)?",
      check: checkMode,
      missing: "",
      recheck: true,
    },
    ask,
  );
  const owner = await askAnswer(
    {
      given: flags.ownerUserId,
      flag: "--owner-user-id",
      current: block.owner_user_id,
      question: "Your Slack member id",
      check: checkMemberId,
      missing: "setup: give your own Slack member id with --owner-user-id U… (your profile → ⋮ → Copy member ID)",
    },
    ask,
  );
  const specs = [SECRETS.bot_token, mode === "socket" ? SECRETS.app_token : SECRETS.signing_secret];
  const answers = await askSecrets(
    specs,
    {
      via: "--secrets-stdin",
      missing:
        "setup: pipe the bot token, then the app-level token (or with --mode webhook the signing secret), in with --secrets-stdin, one per line (never on the command line), or run setup on a terminal",
    },
    ctx,
  );

  const keys = { enabled: true, mode, owner_user_id: owner };
  await probe(
    "slack",
    flags,
    deps,
    { what: "the tokens", with: "the tokens with Slack", refused: "Slack refused" },
    () => {
      const refs = Object.fromEntries(specs.map(({ key }) => [key, answers[key]!.ref]));
      return checkWithAdapter("slack", { ...block, ...keys, ...refs }, deps, ctx.secrets);
    },
  );
  const lines = await saveChannel("slack", deps, ctx, {
    keys,
    summary: `enabled, mode ${mode}, owner ${owner}`,
    specs,
    answers,
  });
  const port = ctx.config.fermix_web?.webhook_port ?? DEFAULT_WEBHOOK_PORT;
  const slackSide =
    mode === "socket"
      ? ["In the Slack app: Socket Mode on, and Event Subscriptions on with the bot events message.im and app_mention."]
      : [
          "In the Slack app, Event Subscriptions (with the bot events message.im and app_mention):",
          `  Request URL: https://<your tunnel>/webhook/slack  (the tunnel forwards to 127.0.0.1:${port}, the webhook port, and nothing else)`,
          "  Slack verifies it once the daemon runs with this config.",
        ];
  await report(deps, lines, [...slackSide, ""], { firstMessage: "send the app a direct message in Slack" });
}

/** A Slack member id: U… (or W… on Enterprise Grid), never a display name. */
export function checkMemberId(answer: string): Checked<string> {
  const id = answer.trim();
  if (/^[UW][A-Z0-9]{6,}$/.test(id)) return { ok: true, value: id };
  return {
    ok: false,
    error: `"${id}" is not a Slack member id (such as U012AB3CD4E: your profile → ⋮ → Copy member ID)`,
  };
}

function checkMode(answer: string): Checked<Mode> {
  const mode = answer.trim().toLowerCase();
  if (mode === "socket" || mode === "webhook") return { ok: true, value: mode };
  return { ok: false, error: `"${answer.trim()}" is not a mode: socket (Socket Mode, the default) or webhook` };
}

/** Never echoed back in an error. */
export function checkSecret(answer: string, key: SecretKey): Checked<string> {
  const value = answer.trim();
  if (value.length > MAX_SECRET_CHARS || /\s/.test(value)) return { ok: false, error: `that is not a ${key}` };
  if (key === "bot_token") {
    return /^xox[be][.-][\w.-]{10,}$/.test(value)
      ? { ok: true, value }
      : { ok: false, error: "that is not a bot token (the Bot User OAuth Token starts with xoxb-)" };
  }
  if (key === "app_token") {
    return /^xapp-[\w-]{10,}$/.test(value)
      ? { ok: true, value }
      : { ok: false, error: "that is not an app-level token (it starts with xapp-; make one with connections:write)" };
  }
  return /^[0-9a-f]{32}$/i.test(value) || value.length >= 16
    ? { ok: true, value }
    : { ok: false, error: "that is not a signing secret (Basic Information shows one: 32 hexadecimal characters)" };
}
