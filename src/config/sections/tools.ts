import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { HttpUrl } from "./_http-url.ts";
import { SecretRef } from "./secret-ref.ts";

export const IMAGE_BACKENDS = ["openai", "xai", "google", "openai_codex"] as const;
/** web_search's backends: DuckDuckGo needs no key; each of the others reads api_key (or its own env var). */
export const WEB_SEARCH_BACKENDS = ["duckduckgo", "brave", "exa", "tavily", "firecrawl"] as const;

/** [fermix_core.tools.<tool>]: the built-in tools that take settings. */
export const ToolsSection = lazySchema(() =>
  v.strictObject({
    tool_search: v.optional(v.strictObject({ enabled: v.optional(v.boolean()) })),
    web_search: v.optional(
      v.strictObject({
        backend: v.optional(
          v.picklist(WEB_SEARCH_BACKENDS, 'one of "duckduckgo", "brave", "exa", "tavily" or "firecrawl"'),
        ),
        api_key: v.optional(SecretRef),
        max_results: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20))),
      }),
    ),
    /** The image tool's backend ([fermix_core.tools.generate_image]); openai and xai use their chat provider's key. */
    generate_image: v.optional(
      v.strictObject({
        backend: v.optional(v.picklist(IMAGE_BACKENDS, 'one of "openai", "xai", "google" or "openai_codex"')),
        model: v.optional(v.pipe(v.string(), v.minLength(1))),
        /** openai_codex: the GPT-5.x model that carries the image tool (the spec's name; `model` is read when unset). */
        router_model: v.optional(v.pipe(v.string(), v.minLength(1))),
        google_api_key: v.optional(SecretRef),
        /** The size asked for when the model names none: "1024x1024" (openai) or an aspect ratio "16:9" (xai, google). */
        size: v.optional(
          v.pipe(
            v.string(),
            v.regex(/^(\d+x\d+|\d+(\.\d+)?:\d+(\.\d+)?|auto)$/, 'a size such as "1024x1024", "16:9" or "auto"'),
          ),
        ),
        /** Another API root for the backend (a proxy, a self-hosted server); openai and xai default to their provider's. */
        base_url: v.optional(HttpUrl),
      }),
    ),
    /** The browser tool: which Chromium, headless or not, when an idle one is shut down, whether loopback pages open. */
    browser: v.optional(
      v.strictObject({
        executable: v.optional(v.pipe(v.string(), v.minLength(1))),
        headless: v.optional(v.boolean()),
        idle_minutes: v.optional(v.pipe(v.number("a number of minutes"), v.gtValue(0, "a number of minutes above 0"))),
        /** Pages on this machine (localhost, 127.0.0.1, ::1) — a dev server; other private addresses stay refused. */
        allow_loopback: v.optional(v.boolean()),
      }),
    ),
  }),
);
