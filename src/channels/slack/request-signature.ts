import { createHmac, timingSafeEqual } from "node:crypto";

/** Slack's requests older (or newer) than this are refused: a captured request cannot be replayed later. */
export const SIGNATURE_WINDOW_S = 300;

/**
 * Whether a request came from Slack (its signing secret): X-Slack-Signature = "v0=" + hex HMAC-SHA256 of
 * "v0:{X-Slack-Request-Timestamp}:{raw body}", the timestamp within SIGNATURE_WINDOW_S of now. Checked over the body
 * exactly as it arrived, before anything parses it; compared in constant time.
 */
export function verifySlackSignature(
  headers: Headers,
  rawBody: Uint8Array,
  signingSecret: string,
  nowMs: number,
): { ok: true } | { ok: false; reason: string } {
  const timestamp = headers.get("x-slack-request-timestamp") ?? "";
  const signature = headers.get("x-slack-signature") ?? "";
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "no X-Slack-Request-Timestamp" };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_S) {
    return { ok: false, reason: "the request timestamp is more than 5 minutes away from now" };
  }
  if (!/^v0=[0-9a-f]{64}$/.test(signature)) return { ok: false, reason: "no v0 X-Slack-Signature" };
  const expected = createHmac("sha256", signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest();
  const given = Buffer.from(signature.slice(3), "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "the signature does not match the signing secret" };
  }
  return { ok: true };
}
