import { registeredSecrets } from "../config/secret-registry.ts";

/**
 * Credential-shaped tokens are replaced by `[REDACTED:<vendor>]` in every log line, trace and error
 * that leaves the process, and so is every secret value the process has registered (config/secret-registry.ts)
 * whatever its shape. A marker means the redactor caught a secret, not that data was lost.
 */
const PATTERNS: Array<[RegExp, string]> = [
  [/sk-ant-[A-Za-z0-9_-]{8,}/g, "anthropic"],
  [/sk-or-v1-[A-Za-z0-9]{16,}/g, "openrouter"],
  [/sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g, "openai"],
  [/xai-[A-Za-z0-9]{20,}/g, "xai"],
  [/gh[pousr]_[A-Za-z0-9]{20,}/g, "github"],
  [/github_pat_[A-Za-z0-9_]{20,}/g, "github"],
  [/xox[abprs]-[A-Za-z0-9-]{10,}/g, "slack"],
  [/xapp-\d-[A-Za-z0-9-]{10,}/g, "slack"],
  [/AIza[0-9A-Za-z_-]{35}/g, "google"],
  [/ya29\.[0-9A-Za-z_-]{20,}/g, "google"],
  [/\b\d{8,10}:[A-Za-z0-9_-]{30,}/g, "telegram"],
  // A Discord bot token: the bot's id in base64, a timestamp, an HMAC.
  [/\b[MNO][A-Za-z0-9_-]{22,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g, "discord"],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, "aws"],
  [/(bearer\s+)[A-Za-z0-9._~+/=-]{12,}/gi, "bearer"],
  [/((?:x-api-key|api[_-]?key|authorization)["']?\s*[:=]\s*["']?)(?![@$])[^\s"',}]{8,}/gi, "key"],
];

export function redact(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  const known = extraSecrets.length
    ? [...registeredSecrets(), ...extraSecrets].sort((a, b) => b.length - a.length)
    : registeredSecrets();
  for (const secret of known) {
    if (secret.length >= 6) out = out.split(secret).join("[REDACTED:secret]");
  }
  for (const [pattern, vendor] of PATTERNS) {
    out = out.replace(pattern, (match, prefix) =>
      typeof prefix === "string" && match.startsWith(prefix) ? `${prefix}[REDACTED:${vendor}]` : `[REDACTED:${vendor}]`,
    );
  }
  return out;
}
