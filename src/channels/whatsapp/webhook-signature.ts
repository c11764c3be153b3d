import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Meta signs every webhook POST with the app secret: X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256 over the
 * raw body, exactly as it arrived (re-serialised JSON would not match). Compared in constant time.
 */
export function validSignature(appSecret: string, rawBody: Uint8Array, header: string | null): boolean {
  const given = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? "")?.[1];
  if (!given) return false;
  const expected = createHmac("sha256", appSecret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(given, "hex"));
}

/** The verify token of the subscription handshake, compared in constant time (the lengths may differ). */
export function sameSecret(expected: string, given: string | null): boolean {
  if (given === null) return false;
  // Hashing both first gives equal lengths, so neither the content nor the length leaks through timing.
  const a = createHmac("sha256", "fermix-verify").update(expected).digest();
  const b = createHmac("sha256", "fermix-verify").update(given).digest();
  return timingSafeEqual(a, b);
}
