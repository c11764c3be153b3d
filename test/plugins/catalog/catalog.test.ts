import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildCatalog } from "../../../src/plugins/catalog/build-catalog.ts";
import { runCatalogStep } from "../../../src/plugins/catalog/build-step.ts";
import { loadCatalog } from "../../../src/plugins/catalog/load-catalog.ts";
import { trustedPublicKeys } from "../../../src/trust/embedded-keys.ts";
import { createTrustMaterial } from "../../../src/trust/trust-material.ts";
import { makeKeyPair } from "../../trust/_fixture.ts";
import { listTgz, tempDir, writeFixturePlugin } from "./_fixture.ts";

const key = makeKeyPair();
const trust = createTrustMaterial({ publicKeys: [key.publicKeyPem] });
const generatedAt = "2026-01-02T03:04:05.000Z";
const realPlugins = join(import.meta.dir, "..", "..", "..", "catalog", "plugins");
const realPluginNames = await readdir(realPlugins).catch(() => [] as string[]);

async function builtCatalog(root: string) {
  const sourceDir = join(root, "plugins");
  await writeFixturePlugin(sourceDir);
  const outDir = join(root, "dist");
  await buildCatalog({ sourceDir, outDir, privateKeyPem: key.privateKeyPem, generatedAt });
  return outDir;
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error & { code: string },
  );

describe("buildCatalog + loadCatalog", () => {
  test("round trip: the index lists the plugin and its artifact verifies", async () => {
    await using tmp = await tempDir();
    const catalog = await loadCatalog({ root: await builtCatalog(tmp.path), trust });
    expect(catalog.plugins.map((p) => p.name)).toEqual(["weather_demo"]);
    expect(catalog.find("weather_demo")).toMatchObject({
      display_name: "Weather demo",
      category: "productivity",
      short_description: "Forecasts",
      developer_name: "fermix tests",
      brand_color: "#336699",
      logo: null,
      auth_type: "api_key",
      auth_provider: null,
      rails: ["http", "mcp"],
      runtime_kind: "node",
      latest: "1.2.3",
      yanked: [],
      versions: [
        {
          version: "1.2.3",
          published_at: generatedAt,
          min_core_version: "0.1.0",
          plugin_api: 2,
          artifacts: [
            {
              target: "any",
              url: "embedded:artifacts/weather_demo-1.2.3.tgz",
              sig_url: "embedded:artifacts/weather_demo-1.2.3.tgz.sigstore.json",
              cert_url: null,
            },
          ],
        },
      ],
    });
    const file = await catalog.artifact("weather_demo");
    expect(file.version).toBe("1.2.3");
    expect(file.sha256).toBe(createHash("sha256").update(file.bytes).digest("hex"));
    expect(file.sha256).toBe(catalog.find("weather_demo")!.versions[0]!.artifacts[0]!.sha256);
    expect((await listTgz(file.bytes)).map((h) => h.name)).toContain("plugin.json");
    expect(catalog.find("nope")).toBeUndefined();
    expect(await refusal(catalog.artifact("nope"))).toMatchObject({ code: "catalog_not_found" });
    expect(await refusal(catalog.artifact("weather_demo", "9.9.9"))).toMatchObject({ code: "catalog_not_found" });
  });

  test("an empty or missing source dir gives an empty, signed catalog", async () => {
    await using tmp = await tempDir();
    const outDir = join(tmp.path, "dist");
    await buildCatalog({ sourceDir: join(tmp.path, "none"), outDir, privateKeyPem: key.privateKeyPem });
    expect((await loadCatalog({ root: outDir, trust })).plugins).toEqual([]);
  });

  test.if(realPluginNames.length > 0)("the real catalog/plugins builds and loads", async () => {
    await using tmp = await tempDir();
    const outDir = join(tmp.path, "dist");
    await buildCatalog({ sourceDir: realPlugins, outDir, privateKeyPem: key.privateKeyPem });
    const catalog = await loadCatalog({ root: outDir, trust });
    for (const plugin of catalog.plugins) expect((await catalog.artifact(plugin.name)).bytes.length).toBeGreaterThan(0);
  });

  test("a tampered index is refused at load", async () => {
    await using tmp = await tempDir();
    const outDir = await builtCatalog(tmp.path);
    const indexPath = join(outDir, "index.json");
    await writeFile(indexPath, (await readFile(indexPath, "utf8")).replace("Weather demo", "Weather dem0"));
    const err = await refusal(loadCatalog({ root: outDir, trust }));
    expect(err).toMatchObject({ code: "signature_invalid" });
    expect(err!.message).toStartWith("the embedded plugin catalog failed its signature check: ");
  });

  test("an index signed by a key this build does not trust is refused", async () => {
    await using tmp = await tempDir();
    const outDir = await builtCatalog(tmp.path);
    const other = createTrustMaterial({ publicKeys: [makeKeyPair().publicKeyPem] });
    const err = await refusal(loadCatalog({ root: outDir, trust: other }));
    expect(err).toMatchObject({ code: "signature_invalid" });
    expect(err!.message).toContain("signed by a key this build does not trust");
  });

  test("a swapped artifact is refused when read", async () => {
    await using tmp = await tempDir();
    const outDir = await builtCatalog(tmp.path);
    await writeFile(join(outDir, "artifacts", "weather_demo-1.2.3.tgz"), "not the tarball");
    const catalog = await loadCatalog({ root: outDir, trust });
    const err = await refusal(catalog.artifact("weather_demo"));
    expect(err).toMatchObject({ code: "signature_invalid" });
    expect(err!.message).toContain("does not match the catalog's sha256");
  });
});

describe("the build step", () => {
  async function checkoutCopy(root: string) {
    const keys = join(import.meta.dir, "..", "..", "..", "catalog", "keys");
    await mkdir(join(root, "catalog"), { recursive: true });
    await cp(keys, join(root, "catalog", "keys"), { recursive: true });
    await writeFixturePlugin(join(root, "catalog", "plugins"));
  }

  test("a development build trusts the development key", async () => {
    await using tmp = await tempDir();
    await checkoutCopy(tmp.path);
    expect(await runCatalogStep({ root: tmp.path, env: {} })).toMatchObject({ release: false, plugins: 1 });
    const devPub = await readFile(join(tmp.path, "catalog", "keys", "dev-signing-key.pub.pem"), "utf8");
    expect(trustedPublicKeys(join(tmp.path, "dist", "embed", "catalog"))).toEqual([devPub]);
  });

  test("a release build trusts only the release key", async () => {
    await using tmp = await tempDir();
    await checkoutCopy(tmp.path);
    const env = { FERMIX_SIGNING_KEY: key.privateKeyPem, FERMIX_SIGNING_PUBLIC_KEY: key.publicKeyPem };
    expect(await runCatalogStep({ root: tmp.path, env })).toMatchObject({ release: true, plugins: 1 });
    expect(trustedPublicKeys(join(tmp.path, "dist", "embed", "catalog"))).toEqual([key.publicKeyPem]);
    const devTrust = createTrustMaterial({
      publicKeys: [await readFile(join(tmp.path, "catalog/keys/dev-signing-key.pub.pem"), "utf8")],
    });
    expect(
      await refusal(loadCatalog({ root: join(tmp.path, "dist", "embed", "catalog"), trust: devTrust })),
    ).toMatchObject({
      code: "signature_invalid",
    });
  });

  test("a release build refuses mismatched halves and the development key", async () => {
    await using tmp = await tempDir();
    await checkoutCopy(tmp.path);
    const mismatched = { FERMIX_SIGNING_KEY: key.privateKeyPem, FERMIX_SIGNING_PUBLIC_KEY: makeKeyPair().publicKeyPem };
    expect(await refusal(runCatalogStep({ root: tmp.path, env: mismatched }))).toBeInstanceOf(Error);
    const keys = join(tmp.path, "catalog", "keys");
    const dev = {
      FERMIX_SIGNING_KEY: await readFile(join(keys, "dev-signing-key.pem"), "utf8"),
      FERMIX_SIGNING_PUBLIC_KEY: await readFile(join(keys, "dev-signing-key.pub.pem"), "utf8"),
    };
    expect((await refusal(runCatalogStep({ root: tmp.path, env: dev })))?.message).toContain("development key");
  });
});
