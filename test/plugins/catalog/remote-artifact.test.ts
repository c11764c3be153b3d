import { describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildCatalog } from "../../../src/plugins/catalog/build-catalog.ts";
import { loadCatalog } from "../../../src/plugins/catalog/load-catalog.ts";
import { signArtifact } from "../../../src/trust/sign.ts";
import { createTrustMaterial } from "../../../src/trust/trust-material.ts";
import { createLoopbackDoor, useFakeServers } from "../../net/loopback-door.ts";
import { tempDir, writeFixturePlugin } from "./_fixture.ts";

const KEYS = join(import.meta.dir, "../../../catalog/keys");
const serve = useFakeServers();

/** A catalog whose one artifact lives at an https origin instead of inside the binary. */
async function remoteCatalog(root: string) {
  const privateKeyPem = await readFile(join(KEYS, "dev-signing-key.pem"), "utf8");
  const trust = createTrustMaterial({ publicKeys: [await readFile(join(KEYS, "dev-signing-key.pub.pem"), "utf8")] });
  await writeFixturePlugin(join(root, "src"));
  const outDir = join(root, "out");
  await buildCatalog({ sourceDir: join(root, "src"), outDir, privateKeyPem });
  const tgz = new Uint8Array(await readFile(join(outDir, "artifacts/weather_demo-1.2.3.tgz")));
  const sig = await readFile(join(outDir, "artifacts/weather_demo-1.2.3.tgz.sigstore.json"));
  const index = JSON.parse(await readFile(join(outDir, "index.json"), "utf8"));
  const artifact = index.plugins[0].versions[0].artifacts[0];
  artifact.url = "https://plugins.example.test/weather_demo-1.2.3.tgz";
  artifact.sig_url = "https://plugins.example.test/weather_demo-1.2.3.tgz.sigstore.json";
  const indexBytes = new TextEncoder().encode(JSON.stringify(index));
  await writeFile(join(outDir, "index.json"), indexBytes);
  await writeFile(join(outDir, "index.json.sigstore.json"), JSON.stringify(signArtifact(indexBytes, privateKeyPem)));
  return { outDir, trust, tgz, sig };
}

describe("https-hosted catalog artifacts", () => {
  test("are downloaded through the guarded door and checked like embedded ones", async () => {
    await using tmp = await tempDir();
    const { outDir, trust, tgz, sig } = await remoteCatalog(tmp.path);
    let tamper = false;
    const { origin } = serve((req) => {
      const path = new URL(req.url).pathname;
      if (path.endsWith(".sigstore.json"))
        return new Response(sig, { headers: { "content-type": "application/json" } });
      const body = tamper ? tgz.map((b, i) => (i === 100 ? b ^ 0xff : b)) : tgz;
      return new Response(body, { headers: { "content-type": "application/gzip" } });
    });
    const door = createLoopbackDoor({
      names: { "plugins.example.test": ["93.184.216.34"] },
      routes: { "93.184.216.34": origin },
    });
    const catalog = await loadCatalog({ root: outDir, trust, net: door.net });
    const file = await catalog.artifact("weather_demo");
    expect(file.bytes).toEqual(tgz);
    expect(door.calls[0]!.init.headers).toMatchObject({ host: "plugins.example.test" });

    tamper = true;
    await expect(catalog.artifact("weather_demo")).rejects.toMatchObject({ code: "signature_invalid" });
  });

  test("a download host that resolves to a private address is refused", async () => {
    await using tmp = await tempDir();
    const { outDir, trust } = await remoteCatalog(tmp.path);
    const door = createLoopbackDoor({ names: { "plugins.example.test": ["10.0.0.7"] } });
    const catalog = await loadCatalog({ root: outDir, trust, net: door.net });
    const err = await catalog.artifact("weather_demo").then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(err?.code).toBe("catalog_unavailable");
    expect(err?.message).toContain("could not be downloaded");
    expect(door.calls).toHaveLength(0);
  });
});
