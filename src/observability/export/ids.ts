/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Opik requires v7 ids for traces
 * and spans; the same 128 bits, as hex, are an OTLP trace id (and their random half a span id).
 */
export function uuidv7(ms: number): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  let t = Math.max(0, Math.floor(ms));
  for (let i = 5; i >= 0; i--) {
    b[i] = t % 256;
    t = Math.floor(t / 256);
  }
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** 32 hex digits: an OTLP trace id. */
export function traceHex(uuid: string): string {
  return uuid.replaceAll("-", "");
}

/** 16 hex digits: an OTLP span id, the uuid's random half (its first half is mostly the timestamp). */
export function spanHex(uuid: string): string {
  return traceHex(uuid).slice(16);
}
