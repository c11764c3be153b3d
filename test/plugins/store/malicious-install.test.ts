import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FermixError } from "../../../src/error.ts";
import { createPluginStore } from "../../../src/plugins/store/plugin-store.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";
import { cases } from "../archive/_malicious-cases.ts";
import { installInput, pluginArtifact, snapshot, storePaths, withSha } from "./_fixture.ts";

const defer = cleanupAfterEach();

/**
 * Every malicious archive of the extractor's table, pushed through the whole install: refused, the store
 * byte-for-byte as it was, and the installed version still loading. (Cases that only trip with a lowered
 * cap are left to the extractor's table: install runs with the default caps.)
 */
describe("installing a malicious archive over a working plugin", () => {
  for (const c of cases.filter((c) => !c.limits)) {
    test(c.name, async () => {
      const home = tempHome();
      defer(() => home[Symbol.asyncDispose]());
      const paths = storePaths(home.home);
      const store = createPluginStore({ paths });
      await store.install(installInput("demo", "1.0.0", await pluginArtifact("demo", "1.0.0")));
      const before = snapshot(paths.root);

      const bytes = await c.build(home.userHome);
      const err = await store.install(installInput("demo", "2.0.0", withSha(bytes))).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FermixError);
      // The archive's own rule, unless the store refused it even earlier (a manifest naming another version).
      const code = (err as FermixError).code;
      expect(["plugin_archive_invalid", "plugin_manifest_invalid"]).toContain(code);
      if (code === "plugin_archive_invalid") expect((err as FermixError).message).toMatch(c.error);
      expect(snapshot(paths.root)).toEqual(before);
      const active = await store.current("demo");
      expect(active?.record.version).toBe("1.0.0");
      expect(JSON.parse(readFileSync(join(active!.dir, "plugin.json"), "utf8")).version).toBe("1.0.0");
    });
  }
});
