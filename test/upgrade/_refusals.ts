import { generateKeyPairSync } from "node:crypto";
import { artifactName } from "../../src/release/targets.ts";
import { type FakeReleaseHost, fakeBinary, publish } from "../fake/release-server.ts";

type ReleaseServer = FakeReleaseHost;

const other = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey.export({
  type: "pkcs8",
  format: "pem",
}) as string;
/**
 * Releases fermix upgrade must refuse, each leaving the installed binary byte-identical: how to publish it on
 * the fake release host, and the message that says why. Used by the engine's tests and by the compiled binary's.
 */
export const REFUSALS: Array<[string, (server: ReleaseServer, target: string) => void, RegExp]> = [
  [
    "a bad signature (another key)",
    (server, target) => publish(server, [{ version: "0.2.0", target, binary: fakeBinary("0.2.0"), key: other }]),
    /signature does not vouch for fermix 0\.2\.0 on linux-x86_64: .*key this build does not trust/,
  ],
  [
    "a missing bundle",
    (server, target) => publish(server, [{ version: "0.2.0", target, binary: fakeBinary("0.2.0"), key: null }]),
    /no usable signature for 0\.2\.0: .*HTTP 404/,
  ],
  [
    "a sha256 mismatch",
    (server, target) => {
      publish(server, [{ version: "0.2.0", target, binary: fakeBinary("0.2.0") }]);
      server.write(`/v0.2.0/${artifactName({ id: target })}`, fakeBinary("0.2.0", "tampered"));
    },
    /sha256 is [0-9a-f]{64}, but releases\.json says [0-9a-f]{64}/,
  ],
  [
    "an older version",
    (server, target) => publish(server, [{ version: "0.0.9", target, binary: fakeBinary("0.0.9") }]),
    /0\.0\.9 is older than the installed 0\.1\.0; refusing to downgrade \(pass --allow-downgrade/,
  ],
  [
    "another target's validly signed build",
    (server, target) =>
      publish(server, [
        { version: "0.2.0", target, binary: fakeBinary("0.2.0"), signedAs: { target: "darwin-arm64" } },
      ]),
    /signature does not vouch for fermix 0\.2\.0 on linux-x86_64/,
  ],
  [
    "an older release signed as itself but listed as newer",
    (server, target) =>
      publish(server, [{ version: "0.2.0", target, binary: fakeBinary("0.2.0"), signedAs: { version: "0.0.9" } }]),
    /signature does not vouch for fermix 0\.2\.0/,
  ],
  [
    "a truncated download",
    (server, target) => {
      publish(server, [{ version: "0.2.0", target, binary: fakeBinary("0.2.0") }]);
      const path = `/v0.2.0/${artifactName({ id: target })}`;
      server.override(path, { body: server.read(path), truncateTo: 10 });
    },
    /truncated|cut after/,
  ],
  [
    "a 404 for the binary",
    (server, target) => {
      publish(server, [{ version: "0.2.0", target, binary: fakeBinary("0.2.0") }]);
      server.override(`/v0.2.0/${artifactName({ id: target })}`, { status: 404 });
    },
    /the release binary at http:\/\/127\.0\.0\.1:\d+\/v0\.2\.0\/fermix_linux_x86_64 answered HTTP 404/,
  ],
  [
    "a binary whose --version is not the release's",
    (server, target) => publish(server, [{ version: "0.2.0", target, binary: fakeBinary("0.1.5") }]),
    /--version printed "0\.1\.5", not 0\.2\.0/,
  ],
  [
    "an artifact on another origin",
    (server, target) => {
      const m = publish(server, [{ version: "0.2.0", target, binary: fakeBinary("0.2.0") }]);
      m.releases[0]!.artifacts[0]!.url = "http://127.0.0.2:9/fermix_linux_x86_64";
      server.write("/releases.json", JSON.stringify(m));
    },
    /outside the release origin/,
  ],
];
