/**
 * Performs one install of demo@2.0.0 into the given FERMIX_HOME and freezes at the chosen stage, after
 * printing `stage:<name>` on stdout — the parent's cue to SIGKILL it (crash.test.ts).
 *
 *   bun test/plugins/store/_install-child.ts <home> <stage>
 */
import { createPluginStore } from "../../../src/plugins/store/plugin-store.ts";
import { installInput, pluginArtifact, storePaths } from "./_fixture.ts";

const [home, freezeAt] = process.argv.slice(2);
if (!home || !freezeAt) {
  console.error("usage: _install-child.ts <home> <stage>");
  process.exit(2);
}

const store = createPluginStore({ paths: storePaths(home) });
await store.install({
  ...installInput("demo", "2.0.0", await pluginArtifact("demo", "2.0.0")),
  onStage: (stage) => {
    if (stage !== freezeAt) return;
    process.stdout.write(`stage:${stage}\n`);
    // A pending promise alone would let the process exit; the timer keeps it parked until the kill.
    setInterval(() => {}, 60_000);
    return new Promise<void>(() => {});
  },
});
process.stdout.write("done\n");
