import { randomBytes } from "node:crypto";
import { resolveSecret } from "../config/secrets.ts";
import type { SecretRef } from "../config/sections/secret-ref.ts";
import { DEFAULT_WEBHOOK_PORT } from "../config/sections/web.ts";
import {
  askAnswer,
  askSecrets,
  checkWithAdapter,
  fresh,
  keptRef,
  openChannelSetup,
  probe,
  refuseFlags,
  report,
  type SecretSpec,
  SIGNAL_FLAGS,
  saveChannel,
} from "./_channel-setup-flow.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup-contract.ts";
import { type Checked, orUsage } from "./validate.ts";

const MAX_SECRET_CHARS = 2048;
/** The access token and the app secret are asked for; the verify token is made here once, for Meta's form. */
const ASKED: SecretSpec[] = [
  {
    key: "access_token",
    slot: "WHATSAPP_ACCESS_TOKEN",
    question: "Permanent access token",
    check: (answer) => checkSecret(answer, "access_token"),
  },
  {
    key: "app_secret",
    slot: "WHATSAPP_APP_SECRET",
    question: "App secret",
    check: (a) => checkSecret(a, "app_secret"),
  },
];
const VERIFY_TOKEN = { key: "verify_token", slot: "WHATSAPP_VERIFY_TOKEN" };

/**
 * `fermix setup --channel whatsapp`: your own WhatsApp number (wa_id), the business number's Phone number ID, the
 * permanent access token and the app secret (piped with --secrets-stdin, one per line, or typed without echo). The
 * token and id are tested with the adapter's own check (GET /{phone_number_id}) before anything is written; the
 * secrets go to the secret store, a verify token is made once for Meta's webhook form, and
 * [fermix_channels.whatsapp] gets enabled = true, the ids and "@keyring" references. It ends with the Meta side:
 * the callback URL (the tunnel to the webhook port) and the verify token to paste.
 */
export async function runWhatsAppSetup(flags: ChannelSetupFlags, deps: ChannelSetupDeps): Promise<void> {
  const ctx = await openChannelSetup("whatsapp", flags, deps);
  const { block, ask, secrets } = ctx;
  refuseFlags(flags, [
    [
      ["tokenStdin"],
      "setup: --channel whatsapp reads its secrets with --secrets-stdin (the access token, then the app secret)",
    ],
    SIGNAL_FLAGS,
  ]);
  if (flags.ownerUserId !== undefined) orUsage(checkWaId(flags.ownerUserId), "--owner-user-id");
  if (flags.phoneNumberId !== undefined) orUsage(checkPhoneNumberId(flags.phoneNumberId), "--phone-number-id");
  if (ctx.interactive) {
    await deps.io.write(
      "fermix setup --channel whatsapp: your WhatsApp number, and from your Meta app's WhatsApp > API Setup the Phone number ID, a permanent access token and (App settings > Basic) the app secret.\n",
    );
  }
  const owner = await askAnswer(
    {
      given: flags.ownerUserId,
      flag: "--owner-user-id",
      current: block.owner_user_id,
      question: "Your own WhatsApp number, country code first (15551234567)",
      check: checkWaId,
      missing: "setup: give --owner-user-id NUMBER (your own WhatsApp number, digits with the country code)",
    },
    ask,
  );
  const phoneNumberId = await askAnswer(
    {
      given: flags.phoneNumberId,
      flag: "--phone-number-id",
      current: block.phone_number_id,
      question: "The business number's Phone number ID (WhatsApp > API Setup)",
      check: checkPhoneNumberId,
      missing: "setup: give --phone-number-id ID (WhatsApp > API Setup in the Meta app)",
    },
    ask,
  );
  const given = await askSecrets(
    ASKED,
    {
      via: "--secrets-stdin",
      missing:
        "setup: pipe the access token and the app secret in with --secrets-stdin, one per line (never on the command line), or run setup on a terminal",
    },
    ctx,
  );
  const verify = keptRef(block.verify_token, VERIFY_TOKEN.slot, secrets)
    ? { ref: block.verify_token as SecretRef }
    : fresh(randomBytes(24).toString("base64url"));

  const keys = { enabled: true, owner_user_id: owner, phone_number_id: phoneNumberId };
  await probe(
    "whatsapp",
    flags,
    deps,
    {
      what: "the access token",
      with: "the access token and the Phone number ID with WhatsApp",
      refused: "WhatsApp refused",
    },
    () =>
      checkWithAdapter(
        "whatsapp",
        {
          ...block,
          ...keys,
          access_token: given.access_token!.ref,
          app_secret: given.app_secret!.ref,
          verify_token: verify.ref,
        },
        deps,
        secrets,
      ),
  );
  const lines = await saveChannel("whatsapp", deps, ctx, {
    keys,
    summary: `enabled, owner ${owner}, phone number id ${phoneNumberId}`,
    specs: [...ASKED, VERIFY_TOKEN],
    answers: { ...given, verify_token: verify },
  });
  const port = ctx.config.fermix_web?.webhook_port ?? DEFAULT_WEBHOOK_PORT;
  const verifyToken = verify.value ?? resolveSecret(verify.ref, VERIFY_TOKEN.slot, secrets);
  await report(
    deps,
    lines,
    [
      "In the Meta app, WhatsApp > Configuration > Webhook:",
      `  Callback URL: https://<your tunnel>/webhook/whatsapp  (the tunnel forwards to 127.0.0.1:${port}, the webhook port, and nothing else)`,
      `  Verify token: ${verifyToken}`,
      "  then subscribe the webhook to the messages field.",
      "",
    ],
    {
      restart: "the daemon starts the channel and the webhook port",
      firstMessage: "send your business number a message from your phone",
    },
  );
}

/** A wa_id: the phone number in international form, digits only ("+1 555-123 4567" is taken as 15551234567). */
export function checkWaId(answer: string): Checked<string> {
  const id = answer.trim().replace(/[\s()+-]/g, "");
  if (/^[1-9]\d{6,14}$/.test(id)) return { ok: true, value: id };
  return {
    ok: false,
    error: `"${answer.trim()}" is not a WhatsApp number (digits with the country code, such as 15551234567)`,
  };
}

/** A Graph phone number id: a long number, not the phone number itself. */
export function checkPhoneNumberId(answer: string): Checked<string> {
  const id = answer.trim();
  if (/^\d{6,20}$/.test(id)) return { ok: true, value: id };
  return {
    ok: false,
    error: `"${id}" is not a Phone number ID (a number such as 106540352242922, shown in WhatsApp > API Setup)`,
  };
}

/** Never echoed back in an error. */
function checkSecret(piped: string, key: "access_token" | "app_secret"): Checked<string> {
  const answer = piped.trim();
  if (key === "app_secret") {
    return /^[0-9a-f]{32}$/i.test(answer) ||
      (answer.length >= 16 && answer.length <= MAX_SECRET_CHARS && !/\s/.test(answer))
      ? { ok: true, value: answer }
      : { ok: false, error: "that is not an app secret (App settings > Basic shows one: 32 hexadecimal characters)" };
  }
  return answer.length >= 20 && answer.length <= MAX_SECRET_CHARS && !/\s/.test(answer)
    ? { ok: true, value: answer }
    : { ok: false, error: "that is not an access token (a permanent one starts EAA… and is about 200 characters)" };
}
