import * as v from "valibot";
import { lazySchema } from "../valibot-lazy.ts";
import { ChannelsSection } from "./sections/channels.ts";
import { CoreSection } from "./sections/core.ts";
import { McpSection } from "./sections/mcp.ts";
import { SandboxSection } from "./sections/sandbox.ts";
import { WebSection } from "./sections/web.ts";

/**
 * config.toml, validated strictly: an unknown key or a wrong type fails the load with the file,
 * section and key named (see load.ts). Sections later capabilities read are declared with their
 * documented keys so a valid file never fails for holding them. Each section, with its defaults, is a
 * file in sections/.
 */
export const Config = lazySchema(() =>
  v.strictObject({
    fermix_core: v.optional(CoreSection),
    fermix_web: v.optional(WebSection),
    sandbox: v.optional(SandboxSection),
    mcp: v.optional(McpSection),
    fermix_channels: v.optional(ChannelsSection),
  }),
);
export type Config = v.InferOutput<typeof Config>;
