/**
 * Runs one upgrade of the fake binary at <binary> and freezes at <stage>, after printing `stage:<name>` — the
 * parent's cue to SIGKILL it (crash.test.ts). No daemon runs, so the upgrade never restarts one.
 *
 *   bun test/upgrade/_upgrade-child.ts <home> <binary> <manifest-url> <stage>
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fermixPaths } from "../../src/config/paths.ts";
import { createTrustMaterial } from "../../src/trust/trust-material.ts";
import { upgrade } from "../../src/upgrade/upgrade.ts";

const [home, binary, manifestUrl, freezeAt] = process.argv.slice(2);
if (!home || !binary || !manifestUrl || !freezeAt) {
  console.error("usage: _upgrade-child.ts <home> <binary> <manifest-url> <stage>");
  process.exit(2);
}
const publicKey = readFileSync(join(import.meta.dir, "../../catalog/keys/dev-signing-key.pub.pem"), "utf8");
await upgrade(
  {},
  {
    paths: fermixPaths(home).upgrade,
    binary,
    currentVersion: "0.1.0",
    target: "linux-x86_64",
    manifestUrl,
    fetch: (input, init) => fetch(input, init),
    trust: createTrustMaterial({ publicKeys: [publicKey] }),
    daemon: {
      health: async () => ({ running: false }),
      serviceInstalled: async () => false,
      restart: async () => {},
      waitFor: async () => ({ ok: true }),
    },
    runVersion: async (b) => Bun.spawnSync([b, "--version"]).stdout.toString().trim(),
    checkConfig: async () => "checked",
    onStage: (stage) => {
      if (stage !== freezeAt) return;
      process.stdout.write(`stage:${stage}\n`);
      setInterval(() => {}, 60_000);
      return new Promise<void>(() => {});
    },
  },
);
process.stdout.write("done\n");
