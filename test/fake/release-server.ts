import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { signRelease } from "../../src/release/statement.ts";
import { artifactName } from "../../src/release/targets.ts";

export const DEV_PRIVATE_KEY = readFileSync(join(import.meta.dir, "../../catalog/keys/dev-signing-key.pem"), "utf8");

/** How one path answers; `truncateTo` sends the full Content-Length but closes after that many bytes. */
export type Served = { status?: number; body: Uint8Array | string; type?: string; truncateTo?: number };

/**
 * A release host on 127.0.0.1 speaking plain HTTP/1.1 over a raw socket, so a test can cut a body short of its
 * Content-Length (what a dropped connection looks like on the wire) — a framework server would not let it.
 */
export function startReleaseServer() {
  const files = new Map<string, Served>();
  const hits: string[] = [];
  const server = Bun.listen<{ buffer: string }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { buffer: "" };
      },
      data(socket, chunk) {
        socket.data.buffer += chunk.toString("latin1");
        const end = socket.data.buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const [method, target] = socket.data.buffer.slice(0, end).split("\r\n")[0]!.split(" ");
        const path = new URL(target ?? "/", "http://x").pathname;
        hits.push(path);
        const served = method === "GET" ? files.get(path) : undefined;
        const status = served ? (served.status ?? 200) : 404;
        const body =
          typeof served?.body === "string"
            ? new TextEncoder().encode(served.body)
            : (served?.body ?? new TextEncoder().encode("not found\n"));
        const head = `HTTP/1.1 ${status} ${status === 200 ? "OK" : "Error"}\r\nContent-Type: ${served?.type ?? "application/octet-stream"}\r\nContent-Length: ${body.byteLength}\r\nConnection: close\r\n\r\n`;
        socket.write(head);
        socket.write(served?.truncateTo !== undefined ? body.subarray(0, served.truncateTo) : body);
        socket.flush();
        socket.end();
      },
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    manifestUrl: `${origin}/releases.json`,
    files,
    hits,
    serve(path: string, served: Served) {
      files.set(path, served);
    },
    close() {
      server.stop(true);
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

/** Publishes releases on the fake host: binaries, bundles and a releases.json listing them. */
export function publish(server: ReturnType<typeof startReleaseServer>, releases: FakeRelease[], latest?: string) {
  const entries = releases.map((r) => {
    const name = artifactName({ id: r.target });
    const dir = `/v${r.version}`;
    const sha256 = sha256Hex(r.binary);
    server.serve(`${dir}/${name}`, { body: r.binary });
    if (r.key !== null) {
      const claim = {
        name: artifactName({ id: r.signedAs?.target ?? r.target }),
        version: r.signedAs?.version ?? r.version,
        target: r.signedAs?.target ?? r.target,
        sha256: r.signedAs?.sha256 ?? sha256,
      };
      server.serve(`${dir}/${name}.sigstore.json`, {
        body: JSON.stringify(signRelease(claim, r.key ?? DEV_PRIVATE_KEY)),
      });
    }
    return {
      version: r.version,
      published_at: "2026-11-29T00:00:00Z",
      artifacts: [
        {
          target: r.target,
          url: `${server.origin}${dir}/${name}`,
          sha256,
          sig_url: `${server.origin}${dir}/${name}.sigstore.json`,
        },
      ],
    };
  });
  const manifest = {
    schema_version: 1,
    latest: latest ?? releases.at(-1)!.version,
    releases: entries,
  };
  server.serve("/releases.json", { body: JSON.stringify(manifest), type: "application/json" });
  return manifest;
}

/** A tiny executable that answers `--version` like a fermix binary would (enough for the upgrade's own checks). */
export function fakeBinary(version: string, extra = ""): Uint8Array {
  return new TextEncoder().encode(
    `#!/bin/sh\n# fake fermix ${extra}\n[ "$1" = "--version" ] && echo ${version}\nexit 0\n`,
  );
}
