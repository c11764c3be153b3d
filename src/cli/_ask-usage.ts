import type { AskUsage } from "../protocol/ask-answer-schemas.ts";

const count = (n: number) => n.toLocaleString("en-US");

/**
 * `ask -u`'s line on stderr: `usage: 1,234 input (1,000 cached), 56 output (12 reasoning) tokens`. The cached and
 * reasoning shares are shown only when there were any (a wire that does not report them counts 0).
 */
export function usageLine(usage: AskUsage): string {
  const cached = usage.cached_input_tokens ? ` (${count(usage.cached_input_tokens)} cached)` : "";
  const reasoning = usage.reasoning_tokens ? ` (${count(usage.reasoning_tokens)} reasoning)` : "";
  return `usage: ${count(usage.input_tokens)} input${cached}, ${count(usage.output_tokens)} output${reasoning} tokens`;
}

/** What `--json` carries when the daemon is older than `usage`: zeros, so the field is always there. */
export const NO_USAGE: AskUsage = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 };

/** Two asks' usage together (a --schema answer and its repair turn are one answer to the script). */
export function addUsage(a: AskUsage | undefined, b: AskUsage | undefined): AskUsage {
  const x = a ?? NO_USAGE;
  const y = b ?? NO_USAGE;
  return {
    input_tokens: x.input_tokens + y.input_tokens,
    cached_input_tokens: x.cached_input_tokens + y.cached_input_tokens,
    output_tokens: x.output_tokens + y.output_tokens,
    reasoning_tokens: x.reasoning_tokens + y.reasoning_tokens,
  };
}
