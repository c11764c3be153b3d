import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { signRelease } from "../../src/release/statement.ts";
import { artifactName } from "../../src/release/targets.ts";
import { FIXTURE_BASE_URL, type ReleaseServer, serveRelease } from "../fixture/release.ts";

export const DEV_PRIVATE_KEY = readFileSync(join(import.meta.dir, "../../catalog/keys/dev-signing-key.pem"), "utf8");

/** A release host on 127.0.0.1 serving a temp root that tests fill with `publish` and change with `write`. */
export type FakeReleaseHost = ReleaseServer & {
  root: string;
  /** Puts `body` at `path` (`/v0.2.0/fermix_linux_x86_64`) under the root. */
  write(path: string, body: Uint8Array | string): void;
  /** The bytes at `path` under the root. */
  read(path: string): Uint8Array;
};

export async function startReleaseServer(): Promise<FakeReleaseHost> {
  const root = mkdtempSync(join(tmpdir(), "fx-release-host-"));
  const server = await serveRelease(root);
  return {
    ...server,
    root,
    write(path, body) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), body);
    },
    read: (path) => readFileSync(join(root, path)),
    async close() {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export type FakeRelease = {
  version: string;
  target: string;
  binary: Uint8Array;
  /** What the signature claims, when a test wants it to lie (another target, version or digest). */
  signedAs?: { version?: string; target?: string; sha256?: string };
  /** Another key's bundle, or none at all. */
  key?: string | null;
};

export const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * Publishes releases on the fake host: binaries, bundles and a releases.json listing them (URLs on the fixture
 * base, which the host rewrites to its own origin). Returns the manifest as written, for tests to bend.
 */
export function publish(host: FakeReleaseHost, releases: FakeRelease[], latest?: string) {
  const entries = releases.map((r) => {
    const name = artifactName({ id: r.target });
    const path = `/v${r.version}/${name}`;
    const sha256 = sha256Hex(r.binary);
    host.write(path, r.binary);
    if (r.key !== null) {
      const claim = {
        name: artifactName({ id: r.signedAs?.target ?? r.target }),
        version: r.signedAs?.version ?? r.version,
        target: r.signedAs?.target ?? r.target,
        sha256: r.signedAs?.sha256 ?? sha256,
      };
      host.write(`${path}.sigstore.json`, JSON.stringify(signRelease(claim, r.key ?? DEV_PRIVATE_KEY)));
    }
    const artifact = { target: r.target, url: `${FIXTURE_BASE_URL}${path}`, sha256, sig_url: "" };
    artifact.sig_url = `${artifact.url}.sigstore.json`;
    return { version: r.version, published_at: "2026-11-29T00:00:00Z", artifacts: [artifact] };
  });
  const manifest = { schema_version: 1, latest: latest ?? releases.at(-1)!.version, releases: entries };
  host.write("/releases.json", JSON.stringify(manifest));
  return manifest;
}

/** A tiny executable that answers `--version` like a fermix binary would (enough for the upgrade's own checks). */
export function fakeBinary(version: string, extra = ""): Uint8Array {
  return new TextEncoder().encode(
    `#!/bin/sh\n# fake fermix ${extra}\n[ "$1" = "--version" ] && echo ${version}\nexit 0\n`,
  );
}
