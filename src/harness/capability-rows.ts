import { createHarnessTools, harnessToolList } from "../capabilities/builtins/coding-harness.ts";
import type { Config } from "../config/schema.ts";
import { createCliDetector } from "./cli-detect.ts";
import { offeredHarness } from "./gate.ts";

/** `fermix capabilities`' harness rows: what a turn of the daemon would be offered (this PATH, this config). */
export function harnessCapabilityRows(config: Config, path: string | undefined) {
  const cli = createCliDetector(path);
  const offered = offeredHarness(config, (vendor) => cli(vendor) !== null);
  const unused = () => Promise.reject(new Error("listing only"));
  // Only what a turn advertises: a quiet vendor's run tool is callable by name but not listed (gate.ts).
  const listed = harnessToolList(createHarnessTools({ service: unused }), offered).filter((t) => !t.unadvertised);
  return listed.map((tool) => ({
    name: tool.name,
    kind: "builtin" as const,
    description: tool.description,
    policy: tool.policy,
    read_only: tool.readOnly,
  }));
}

/** Every harness tool, as the docs check names them (gating aside). */
export const HARNESS_TOOLS = harnessToolList(
  createHarnessTools({ service: () => Promise.reject(new Error("listing only")) }),
  { history: true, vendors: ["codex", "claude"] },
);
