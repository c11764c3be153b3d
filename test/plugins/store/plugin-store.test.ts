import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FermixError } from "../../../src/error.ts";
import { createPluginStore } from "../../../src/plugins/store/plugin-store.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";
import { pluginEntries, type TarEntry, tgz } from "../archive/_tarball.ts";
import { installInput, pluginArtifact, snapshot, storePaths, withSha } from "./_fixture.ts";

const defer = cleanupAfterEach();
const NOW = Date.parse("2025-06-01T12:00:00Z");

async function storeWithV1V2() {
  const home = tempHome();
  defer(() => home[Symbol.asyncDispose]());
  const paths = storePaths(home.home);
  const store = createPluginStore({ paths, now: () => NOW });
  await store.install(installInput("demo", "1.0.0", await pluginArtifact("demo", "1.0.0")));
  await store.install(installInput("demo", "2.0.0", await pluginArtifact("demo", "2.0.0")));
  return { paths, store };
}

async function expectV2Loads(store: ReturnType<typeof createPluginStore>) {
  const active = await store.current("demo");
  expect(active?.record.version).toBe("2.0.0");
  expect(readFileSync(join(active!.dir, "skills/hello/SKILL.md"), "utf8")).toBe("# hello from demo 2.0.0\n");
}

async function refusal(promise: Promise<unknown>): Promise<FermixError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FermixError);
  return err as FermixError;
}

describe("plugin store", () => {
  test("install v1 then v2: current is v2, the record and the link agree", async () => {
    const { paths, store } = await storeWithV1V2();
    await expectV2Loads(store);
    expect(readlinkSync(join(paths.installed, "demo", "current"))).toBe("2.0.0");
    const record = JSON.parse(readFileSync(paths.record, "utf8"));
    expect(record).toEqual({
      demo: {
        version: "2.0.0",
        sha256: (await pluginArtifact("demo", "2.0.0")).sha256,
        tree_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        plugin_api: 1,
        min_core_version: "0.1.0",
        verified_at: "2025-06-01T12:00:00.000Z",
        previous: "1.0.0",
      },
    });
    expect(await store.versions("demo")).toEqual(["1.0.0", "2.0.0"]);
    expect((await store.list()).map((p) => p.record.name)).toEqual(["demo"]);
    expect(existsSync(paths.lock)).toBe(false);
  });

  test("installs from a ReadableStream", async () => {
    const home = tempHome();
    defer(() => home[Symbol.asyncDispose]());
    const store = createPluginStore({ paths: storePaths(home.home) });
    const artifact = await pluginArtifact("demo", "1.0.0");
    const input = installInput("demo", "1.0.0", artifact);
    input.artifact = new Blob([artifact.bytes]).stream();
    expect((await store.install(input)).version).toBe("1.0.0");
  });

  const refusals: {
    name: string;
    code: string;
    message: RegExp;
    input: () => Promise<ReturnType<typeof installInput>>;
  }[] = [
    ...(
      [
        ["a traversal entry", { name: "../escape", body: "x" }, /'\.\.' segments/],
        ["a symlink", { name: "assets/link", type: "symlink", linkname: "../../../2.0.0" }, /symlink entries/],
        ["a hardlink", { name: "assets/passwd", type: "link", linkname: "/etc/passwd" }, /link entries/],
        ["a disallowed top-level file", { name: "evil.sh", body: "rm -rf ~" }, /"evil\.sh" is not an allowed/],
      ] as [string, TarEntry, RegExp][]
    ).map(([name, entry, message]) => ({
      name: `malicious archive: ${name}`,
      code: "plugin_archive_invalid",
      message,
      input: async () => installInput("demo", "3.0.0", withSha(await tgz(pluginEntries("demo", "3.0.0", [entry])))),
    })),
    {
      name: "checksum mismatch",
      code: "plugin_checksum_mismatch",
      message: /artifact sha256 is [0-9a-f]{64}, the catalog says 0{64}/,
      input: async () => ({
        ...installInput("demo", "3.0.0", await pluginArtifact("demo", "3.0.0")),
        expectedSha256: "0".repeat(64),
      }),
    },
    {
      name: "failing signature",
      code: "plugin_signature_invalid",
      message: /signature does not verify/,
      input: async () => installInput("demo", "3.0.0", await pluginArtifact("demo", "3.0.0"), new Set()),
    },
    {
      name: "validate failure: wrong name and version inside",
      code: "plugin_manifest_invalid",
      message: /name: is "impostor", expected "demo"\n {2}version: is "9\.9\.9", expected "3\.0\.0"/,
      input: async () => installInput("demo", "3.0.0", await pluginArtifact("impostor", "9.9.9")),
    },
    {
      name: "runtime files without a declared runtime",
      code: "plugin_archive_invalid",
      message: /"package\.json": runtime files need a manifest runtime/,
      input: async () =>
        installInput("demo", "3.0.0", await pluginArtifact("demo", "3.0.0", [{ name: "package.json", body: "{}" }])),
    },
    {
      name: "missing host runtime",
      code: "plugin_missing_host_runtime",
      message: /node 22 not found/,
      input: async () => ({
        ...installInput("demo", "3.0.0", await pluginArtifact("demo", "3.0.0")),
        probeRuntime: async () => ({
          ok: false as const,
          status: "missing_host_runtime" as const,
          reason: "node 22 not found",
        }),
      }),
    },
    {
      name: "reinstalling v2 with a malicious artifact",
      code: "plugin_archive_invalid",
      message: /symlink entries/,
      input: async () =>
        installInput(
          "demo",
          "2.0.0",
          withSha(
            await tgz(pluginEntries("demo", "2.0.0", [{ name: "bin/sh", type: "symlink", linkname: "/bin/sh" }])),
          ),
        ),
    },
  ];

  for (const r of refusals) {
    test(`refused, store unchanged: ${r.name}`, async () => {
      const { paths, store } = await storeWithV1V2();
      const before = snapshot(paths.root);
      const err = await refusal(store.install(await r.input()));
      expect(err.code).toBe(r.code);
      expect(err.message).toMatch(r.message);
      expect(snapshot(paths.root)).toEqual(before);
      await expectV2Loads(store);
    });
  }

  test("reinstalling the active version replaces it in place", async () => {
    const { paths, store } = await storeWithV1V2();
    const changed = withSha(await tgz(pluginEntries("demo", "2.0.0", [{ name: "README.md", body: "rebuilt" }])));
    const record = await store.install(installInput("demo", "2.0.0", changed));
    expect(record.previous).toBe("1.0.0");
    expect(readFileSync(join(paths.installed, "demo", "2.0.0", "README.md"), "utf8")).toBe("rebuilt");
    expect(snapshot(join(paths.installed, "demo"))).not.toHaveProperty([".2.0.0.replaced"]);
  });

  test("activate rolls back and pins; the record follows", async () => {
    const { paths, store } = await storeWithV1V2();
    const rolled = await store.activate("demo", "1.0.0");
    expect(rolled).toMatchObject({ version: "1.0.0", previous: "2.0.0" });
    expect((await store.current("demo"))?.record.sha256).toBe((await pluginArtifact("demo", "1.0.0")).sha256);
    expect(readlinkSync(join(paths.installed, "demo", "current"))).toBe("1.0.0");
    const missing = await refusal(store.activate("demo", "7.0.0"));
    expect(missing.code).toBe("plugin_not_installed");
    expect(missing.message).toContain("installed: 1.0.0, 2.0.0");
  });

  test("activate refuses a version whose tree changed since it was verified", async () => {
    const { paths, store } = await storeWithV1V2();
    writeFileSync(join(paths.installed, "demo", "1.0.0", "plugin.json"), "{}");
    const err = await refusal(store.activate("demo", "1.0.0"));
    expect(err.code).toBe("plugin_store_corrupt");
    await expectV2Loads(store);
  });

  test("gc keeps the active version and one rollback, and sweeps leftovers", async () => {
    const { paths, store } = await storeWithV1V2();
    await store.install(installInput("demo", "3.0.0", await pluginArtifact("demo", "3.0.0")));
    await store.install(installInput("other", "1.0.0", await pluginArtifact("other", "1.0.0")));
    writeFileSync(join(paths.staging, "leftover"), "x");
    const report = await store.gc();
    expect(report.removed).toEqual([{ name: "demo", version: "1.0.0" }]);
    expect(report.swept).toEqual(["staging/leftover"]);
    expect(await store.versions("demo")).toEqual(["2.0.0", "3.0.0"]);
    expect(await store.versions("other")).toEqual(["1.0.0"]);
    expect(existsSync(join(paths.installed, "demo", ".1.0.0.json"))).toBe(false);
    expect((await store.gc()).removed).toEqual([]);
  });

  test("uninstall removes every version and the record entry", async () => {
    const { paths, store } = await storeWithV1V2();
    expect(await store.uninstall("demo")).toEqual(["1.0.0", "2.0.0"]);
    expect(await store.current("demo")).toBeUndefined();
    expect(await store.list()).toEqual([]);
    expect(existsSync(join(paths.installed, "demo"))).toBe(false);
    expect(JSON.parse(readFileSync(paths.record, "utf8"))).toEqual({});
    expect((await refusal(store.uninstall("demo"))).code).toBe("plugin_not_installed");
  });

  test("names and versions that could leave installed/ are refused before anything happens", async () => {
    const home = tempHome();
    defer(() => home[Symbol.asyncDispose]());
    const store = createPluginStore({ paths: storePaths(home.home) });
    const artifact = await pluginArtifact("demo", "1.0.0");
    for (const [name, version] of [
      ["../x", "1.0.0"],
      ["demo", "../../x"],
      ["demo", "current"],
      ["Demo", "1.0.0"],
    ]) {
      const err = await refusal(
        store.install({ ...installInput("demo", "1.0.0", artifact), name: name!, version: version! }),
      );
      expect(err.code).toBe("plugin_name_invalid");
    }
    expect(existsSync(storePaths(home.home).root)).toBe(false);
  });

  test("two concurrent installs serialise on the lock", async () => {
    const home = tempHome();
    defer(() => home[Symbol.asyncDispose]());
    const paths = storePaths(home.home);
    const a = createPluginStore({ paths });
    const b = createPluginStore({ paths });
    const [one, two] = await Promise.all([
      a.install(installInput("one", "1.0.0", await pluginArtifact("one", "1.0.0"))),
      b.install(installInput("two", "1.0.0", await pluginArtifact("two", "1.0.0"))),
    ]);
    expect([one.name, two.name]).toEqual(["one", "two"]);
    expect(Object.keys(JSON.parse(readFileSync(paths.record, "utf8")))).toEqual(["one", "two"]);
  });

  test("a live holder makes the store busy after the bounded wait", async () => {
    const home = tempHome();
    defer(() => home[Symbol.asyncDispose]());
    const paths = storePaths(home.home);
    const store = createPluginStore({ paths, lockTimeoutMs: 50 });
    await store.gc(); // creates the layout
    writeFileSync(paths.lock, `${process.pid} someone-else`);
    const err = await refusal(store.gc());
    expect(err.code).toBe("plugin_store_busy");
    expect(err.message).toContain(`pid ${process.pid}`);
  });
});
