import { defineError } from "../error.ts";
import { isVersion } from "../release/semver.ts";
import { verifyRelease } from "../release/statement.ts";
import { artifactName, RELEASE_TARGETS, targetById } from "../release/targets.ts";
import { readStream, readText } from "../runtime/files.ts";
import { createSha256 } from "../runtime/hash.ts";
import { embeddedTrust } from "../trust/embedded-keys.ts";
import { defineCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";

const ReleaseFileUnreadable = defineError("release_file_unreadable");

const USAGE = "verify-release --bundle FILE --version V --target T [--name N] BINARY";

/**
 * Hidden verb: install.sh runs it on a freshly downloaded binary when cosign is absent. It rebuilds the release
 * statement from what the installer asked for (version, target) and the sha256 it computes here, and checks
 * the bundle against the keys this build trusts. Being the downloaded binary itself, it can catch a wrong or
 * damaged download, not a forged release; install.sh says so.
 */
export default defineCommand({
  meta: {
    name: "verify-release",
    hidden: true,
    usage: USAGE,
    description: "Check a release binary's sigstore bundle against the release keys this build trusts",
    // Its own sentence names what is missing; the arguments are checked together below.
    takesWords: true,
  },
  args: {
    bundle: { type: "string", valueHint: "FILE", description: "the release's <name>.sigstore.json" },
    version: { type: "string", valueHint: "V", description: "the version the binary must have been signed as" },
    target: {
      type: "string",
      valueHint: "T",
      description: "the target it must have been signed for (linux-x86_64, …)",
    },
    name: { type: "string", valueHint: "N", description: "its artifact name (default: from the target)" },
  },
  async run({ args }) {
    const [binary, extra] = args._;
    const { bundle, version, target } = args as Record<string, string | undefined>;
    if (!binary || extra !== undefined || !bundle || !version || !target) throw UsageError(`usage: fermix ${USAGE}`);
    if (!isVersion(version)) throw UsageError(`verify-release: --version ${version} is not a version like 0.2.0`);
    const known = targetById(target);
    if (!known) {
      const ids = RELEASE_TARGETS.map((t) => t.id).join(", ");
      throw UsageError(`verify-release: --target ${target} is not a release target (${ids})`);
    }
    const name = typeof args.name === "string" ? args.name : artifactName(known);

    const sha256 = await sha256File(binary);
    let bundleJson: unknown;
    try {
      bundleJson = JSON.parse(await readText(bundle));
    } catch (err) {
      throw ReleaseFileUnreadable(`cannot read the signature bundle ${bundle}: ${(err as Error).message}`);
    }
    await verifyRelease({ claim: { name, version, target, sha256 }, bundle: bundleJson, trust: embeddedTrust() });
    await writeOut(
      `verified: ${name} ${version} for ${target} (sha256 ${sha256}) is signed by a release key this build trusts\n`,
    );
    return EXIT.ok;
  },
});

async function sha256File(path: string): Promise<string> {
  const hasher = createSha256();
  try {
    for await (const chunk of readStream(path)) hasher.update(chunk);
  } catch (err) {
    throw ReleaseFileUnreadable(`cannot read ${path}: ${(err as Error).message}`);
  }
  return hasher.digestHex();
}
