import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { parseConfig } from "../../src/config/load.ts";
import { fermixPaths } from "../../src/config/paths.ts";
import type { Config } from "../../src/config/schema.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { loadCatalog } from "../../src/plugins/catalog/load-catalog.ts";
import { devLocalRoots } from "../../src/plugins/dev-local.ts";
import { createPluginHost } from "../../src/plugins/plugin-host.ts";
import { createPluginStore } from "../../src/plugins/store/plugin-store.ts";
import { VERSION } from "../../src/version.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { writePlugin } from "../fixture/plugin-folder.ts";

const defer = cleanupAfterEach();

function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const paths = fermixPaths(h.home);
  const host = createPluginHost({
    paths,
    coreVersion: VERSION,
    catalog: () => loadCatalog(),
    store: createPluginStore({ paths: paths.plugins }),
    secrets: createSecretStore({ secretsDir: paths.secrets }),
  });
  const root = join(h.userHome, "fermix-plugins", "plugins");
  mkdirSync(root, { recursive: true });
  return { h, host, root };
}

// Through config.toml's parser, so both shapes are the ones a real file gives (JSON strings are TOML strings).
const config = (devLocal: string | string[]): Config =>
  parseConfig(`[fermix_core.plugins]\ndev_local = ${JSON.stringify(devLocal)}\n`, "config.toml");

describe("dev_local: a folder whose subfolders are plugins", () => {
  test("every plugin folder loads in place as source dev_local; dot-folders and plain files are passed over", async () => {
    const { host, root } = setup();
    const alpha = writePlugin(root, "alpha");
    const beta = writePlugin(root, "beta");
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, "README.md"), "# plugins\n");
    const entries = await host.entries(config(root));
    const dev = entries.filter((e) => e.source === "dev_local");
    expect(dev.map((e) => [e.name, e.dir, e.version, e.loadError])).toEqual([
      ["alpha", alpha, "0.1.0", undefined],
      ["beta", beta, "0.1.0", undefined],
    ]);
    expect(dev[0]!.manifest?.tools.map((t) => t.name)).toEqual(["alpha_get_item"]);
    expect(await host.problems(config(root))).toEqual([]);
    expect(await host.problems({})).toEqual([]);
  });

  test("a missing root is a problem naming the path, the key and the fix; the other root still loads", async () => {
    const { h, host, root } = setup();
    writePlugin(root, "alpha");
    const missing = join(h.userHome, "nowhere");
    const problems = await host.problems(config([missing, root]));
    expect(problems).toEqual([
      {
        folder: missing,
        message: `${missing} ([fermix_core.plugins] dev_local in config.toml) does not exist; point [fermix_core.plugins] dev_local at the folder whose subfolders are plugins, or remove it`,
      },
    ]);
    const file = join(h.userHome, "a-file");
    writeFileSync(file, "");
    expect((await host.problems(config(file)))[0]!.message).toContain(`${file} ([fermix_core.plugins] dev_local`);
    expect((await host.problems(config(file)))[0]!.message).toContain("is not a folder");
    const entries = await host.entries(config([missing, root]));
    expect(entries.filter((e) => e.source === "dev_local").map((e) => e.name)).toEqual(["alpha"]);
  });

  test("a bad manifest is a problem listing every issue and a row with loadError; the good folder loads", async () => {
    const { host, root } = setup();
    writePlugin(root, "alpha");
    const bad = writePlugin(root, "broken", { name: "other", version: "one" });
    const [problem, ...rest] = await host.problems(config(root));
    expect(rest).toEqual([]);
    expect(problem!.folder).toBe(bad);
    expect(problem!.message).toStartWith(`${bad} does not load: `);
    expect(problem!.message).toContain("name: ");
    expect(problem!.message).toContain("version: ");
    expect(problem!.message).toEndWith(`(fix it, then fermix plugins validate ${bad})`);
    const entries = await host.entries(config(root));
    const broken = entries.find((e) => e.name === "broken");
    expect(broken).toMatchObject({ source: "dev_local", dir: bad, manifest: undefined });
    expect(broken!.loadError).toContain("name: ");
    expect(entries.find((e) => e.name === "alpha")).toMatchObject({ source: "dev_local", loadError: undefined });
  });

  test("a folder named like a bundled plugin is not loaded: gmail stays the bundled one", async () => {
    const { host, root } = setup();
    writePlugin(root, "alpha");
    const gmail = writePlugin(root, "gmail");
    expect(await host.problems(config(root))).toEqual([
      {
        folder: gmail,
        message: `${gmail} is not loaded: gmail is a bundled plugin, which keeps its place; rename the folder and the name in its plugin.json`,
      },
    ]);
    const entries = await host.entries(config(root));
    const bundled = entries.find((e) => e.name === "gmail");
    expect([bundled?.source, bundled?.dir]).toEqual(["bundled", undefined]);
    expect(entries.find((e) => e.name === "alpha")?.source).toBe("dev_local");
  });

  test("a folder named like an installed plugin is not loaded, with the uninstall hint", async () => {
    const { host, root } = setup();
    await host.install("slack");
    writePlugin(root, "alpha");
    const slack = writePlugin(root, "slack");
    const [problem, ...rest] = await host.problems(config(root));
    expect(rest).toEqual([]);
    expect(problem).toEqual({
      folder: slack,
      message: `${slack} is not loaded: slack is installed, and the installed plugin keeps its place; rename the folder and the name in its plugin.json, or fermix plugins uninstall slack`,
    });
    const entries = await host.entries(config(root));
    expect(entries.find((e) => e.name === "slack")).toMatchObject({ source: "installed", version: "1.0.0" });
    expect(entries.find((e) => e.name === "alpha")?.source).toBe("dev_local");
  });

  test("two roots holding the same name: the first keeps it, the second is a problem", async () => {
    const { h, host, root } = setup();
    const first = writePlugin(root, "alpha");
    const other = join(h.userHome, "other");
    const second = writePlugin(other, "alpha");
    writePlugin(other, "beta");
    const problems = await host.problems(config([root, other]));
    expect(problems).toEqual([
      {
        folder: second,
        message: `${second} is not loaded: ${first} (also under [fermix_core.plugins] dev_local) is named alpha too and keeps its place; rename the folder and the name in its plugin.json, or drop one of the roots`,
      },
    ]);
    const dev = (await host.entries(config([root, other]))).filter((e) => e.source === "dev_local");
    expect(dev.map((e) => [e.name, e.dir])).toEqual([
      ["alpha", first],
      ["beta", join(other, "beta")],
    ]);
    // The same root twice is one root, not a collision with itself.
    expect(await host.problems(config([root, `${root}/`]))).toEqual([]);
  });

  test("a symlinked plugin folder is a problem rather than followed or skipped", async () => {
    const { h, host, root } = setup();
    const real = writePlugin(join(h.userHome, "elsewhere"), "gamma");
    symlinkSync(real, join(root, "gamma"));
    const problems = await host.problems(config(root));
    expect(problems).toEqual([
      {
        folder: join(root, "gamma"),
        message: `${join(root, "gamma")} is a symlink; [fermix_core.plugins] dev_local loads real folders only, so move the plugin folder there or add the folder that holds it to [fermix_core.plugins] dev_local`,
      },
    ]);
  });
});

describe("[fermix_core.plugins] dev_local in config.toml", () => {
  const parse = (value: string) => parseConfig(`[fermix_core.plugins]\ndev_local = ${value}\n`, "config.toml");

  test("one absolute path or a list of them", () => {
    expect(devLocalRoots(parse('"/src/fermix-plugins/plugins"'))).toEqual(["/src/fermix-plugins/plugins"]);
    expect(devLocalRoots(parse('["/a/plugins", "/b/plugins"]'))).toEqual(["/a/plugins", "/b/plugins"]);
    expect(devLocalRoots(parse("[]"))).toEqual([]);
    expect(devLocalRoots({})).toEqual([]);
  });

  test.each([
    ['"plugins"', 'expected an absolute path (relative paths and ~/ are not expanded), got "plugins"'],
    ['["/a", "~/plugins"]', 'expected an absolute path (relative paths and ~/ are not expanded), got "~/plugins"'],
    ["5", "expected an absolute path to a folder of plugin folders, or a list of such paths, got 5"],
    ["[5]", "expected an absolute path to a folder of plugin folders, or a list of such paths, got Array"],
  ])("dev_local = %s is refused", (value, message) => {
    expect(() => parse(value)).toThrow(`config.toml: [fermix_core.plugins] dev_local: ${message}`);
  });
});

/** An in-process app (a one-shot ask's) on this home, against a fake model that answers "pong". */
async function oneShotApp(h: ReturnType<typeof setup>["h"]) {
  const key = "sk-test-dev-local-app-0123";
  const llm = await startFakeOpenAIResponses({ apiKey: key });
  defer(() => llm.close());
  llm.setDefault({ kind: "text", text: "pong" });
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: key, OPENAI_BASE_URL: llm.baseUrl };
  const app = await createApp({ env });
  defer(() => app.close());
  return { app, llm };
}

describe("dev_local problems are loud where each kind of fermix speaks", () => {
  test("a one-shot ask answers, and tells stderr (its notices) which folder did not load and why", async () => {
    const { h, root } = setup();
    writePlugin(root, "alpha");
    const broken = writePlugin(root, "broken", { version: "one" });
    h.writeConfig(`[fermix_core.plugins]\nenabled = ["alpha"]\ndev_local = "${root}"\n`);
    const { app } = await oneShotApp(h);
    const notices: string[] = [];
    const reply = await app.ask({
      key: { channel: "cli", chat: "loud" },
      caller: { trust: "operator", local: true, attended: true },
      text: "ping",
      onNotice: (text) => notices.push(text),
    });
    expect(reply.response).toBe("pong");
    expect(notices.join("\n")).toContain(broken);
    expect(notices.join("\n")).toContain("version");
  });
});

describe("dev_local skills are loaded in place", () => {
  test("an enabled plugin's declared skill reaches the prompt's skills index and skill_view", async () => {
    const { h, root } = setup();
    const dir = writePlugin(root, "alpha", { skills: [{ name: "alpha-guide", path: "skills/alpha-guide" }] });
    mkdirSync(join(dir, "skills", "alpha-guide"), { recursive: true });
    writeFileSync(
      join(dir, "skills", "alpha-guide", "SKILL.md"),
      "---\nname: alpha-guide\ndescription: Use when the user asks about alpha items.\n---\n\n# Alpha\n\nRead items with alpha_get_item.\n",
    );
    h.writeConfig(`[fermix_core.plugins]\nenabled = ["alpha"]\ndev_local = "${root}"\n`);
    const { app, llm } = await oneShotApp(h);
    await app.ask({
      key: { channel: "cli", chat: "skill" },
      caller: { trust: "operator", local: true, attended: true },
      text: "ping",
    });
    expect(llm.requests[0]!.body.instructions).toContain("alpha-guide");
    const viewed = await app.skills.view("alpha-guide");
    expect(viewed.skill).toMatchObject({ source: "plugin", plugin: "alpha" });
    expect(viewed.text).toContain("Read items with alpha_get_item.");
  });
});
