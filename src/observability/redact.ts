import { registeredSecrets } from "../config/secret-registry.ts";

/**
 * Credential-shaped tokens are replaced by `[REDACTED:<vendor>]` in every log line, trace and error
 * that leaves the process, and so is every secret value the process has registered (config/secret-registry.ts)
 * whatever its shape. A marker means the redactor caught a secret, not that data was lost.
 *
 * Each pattern carries the literals one of which any match must contain (`lower`: in the lowercased text, for the
 * case-insensitive ones; none: always run). A text without them cannot match, so the pattern is not run at all: most
 * lines contain none, and a first run of the regexes (compiling each) cost a one-shot ask ~0.7 ms before its request.
 */
const PATTERNS: Array<{ re: RegExp; vendor: string; any?: string[]; lower?: string[] }> = [
  { re: /sk-ant-[A-Za-z0-9_-]{8,}/g, vendor: "anthropic", any: ["sk-ant-"] },
  { re: /sk-or-v1-[A-Za-z0-9]{16,}/g, vendor: "openrouter", any: ["sk-or-v1-"] },
  { re: /sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g, vendor: "openai", any: ["sk-"] },
  { re: /xai-[A-Za-z0-9]{20,}/g, vendor: "xai", any: ["xai-"] },
  { re: /gh[pousr]_[A-Za-z0-9]{20,}/g, vendor: "github", any: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] },
  { re: /github_pat_[A-Za-z0-9_]{20,}/g, vendor: "github", any: ["github_pat_"] },
  { re: /xox[abprs]-[A-Za-z0-9-]{10,}/g, vendor: "slack", any: ["xox"] },
  { re: /xapp-\d-[A-Za-z0-9-]{10,}/g, vendor: "slack", any: ["xapp-"] },
  { re: /AIza[0-9A-Za-z_-]{35}/g, vendor: "google", any: ["AIza"] },
  { re: /ya29\.[0-9A-Za-z_-]{20,}/g, vendor: "google", any: ["ya29."] },
  { re: /\b\d{8,10}:[A-Za-z0-9_-]{30,}/g, vendor: "telegram" },
  // A Discord bot token: the bot's id in base64, a timestamp, an HMAC.
  { re: /\b[MNO][A-Za-z0-9_-]{22,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g, vendor: "discord" },
  { re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, vendor: "aws", any: ["AKIA", "ASIA"] },
  // Without the u flag, /i folds ASCII letters only: a match's letters lowercase to these literals.
  { re: /(bearer\s+)[A-Za-z0-9._~+/=-]{12,}/gi, vendor: "bearer", lower: ["bearer"] },
  {
    re: /((?:x-api-key|api[_-]?key|authorization)["']?\s*[:=]\s*["']?)(?![@$])[^\s"',}]{8,}/gi,
    vendor: "key",
    lower: ["key", "authorization"],
  },
];

export function redact(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  const known = extraSecrets.length
    ? [...registeredSecrets(), ...extraSecrets].sort((a, b) => b.length - a.length)
    : registeredSecrets();
  for (const secret of known) {
    if (secret.length >= 6 && out.includes(secret)) out = out.split(secret).join("[REDACTED:secret]");
  }
  let lowered: string | undefined;
  for (const { re, vendor, any, lower } of PATTERNS) {
    if (any && !any.some((literal) => out.includes(literal))) continue;
    if (lower) {
      lowered ??= out.toLowerCase();
      if (!lower.some((literal) => lowered!.includes(literal))) continue;
    }
    out = out.replace(re, (match, prefix) =>
      typeof prefix === "string" && match.startsWith(prefix) ? `${prefix}[REDACTED:${vendor}]` : `[REDACTED:${vendor}]`,
    );
    lowered = undefined;
  }
  return out;
}
