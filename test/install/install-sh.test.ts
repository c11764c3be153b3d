import { beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { installScriptDefaultUrl, KEY_MARKER } from "../../src/release/install-script.ts";
import { RELEASES_MANIFEST_URL } from "../../src/release/location.ts";
import { signRelease } from "../../src/release/statement.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runCommand } from "../fixture/cli.ts";
import { type BuiltRelease, buildRelease, type ReleaseServer, servedText, serveRelease } from "../fixture/release.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const DEV_PRIVATE_KEY = readFileSync(join(ROOT, "catalog/keys/dev-signing-key.pem"), "utf8");
const defer = cleanupAfterEach();
// Absolute, so a test's narrowed PATH still finds it.
const SH = Bun.which("sh") ?? "/bin/sh";
const sums = new Map<string, string>();
/** sha256 of a file; the release's own binaries are hashed once. */
function sha256(path: string): string {
  const cached = path.startsWith(release.root) ? sums.get(path) : undefined;
  if (cached) return cached;
  const sum = new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
  if (path.startsWith(release.root)) sums.set(path, sum);
  return sum;
}

let release: BuiltRelease;
beforeAll(async () => {
  release = await buildRelease({ versions: ["0.1.0", "0.2.0"] });
}, 60_000);

type Install = { code: number; stdout: string; stderr: string; bin: string; home: string };

/** A fresh temp prefix (and HOME) for one install; removed after the test. */
function tempPrefix(): { prefix: string; bin: string; home: string } {
  const base = mkdtempSync(join(tmpdir(), "fx-install-"));
  defer(() => rmSync(base, { recursive: true, force: true }));
  const home = join(base, "home");
  mkdirSync(home);
  return { prefix: join(base, "prefix"), bin: join(base, "prefix", "bin"), home };
}

/** Runs the released install.sh (key pinned) with `sh`, against `server`, stdout not a TTY. */
async function install(
  server: ReleaseServer,
  args: string[],
  opts: {
    prefix?: ReturnType<typeof tempPrefix>;
    path?: string;
    script?: string;
    releasesUrl?: string;
    shell?: string;
    env?: Record<string, string>;
  } = {},
): Promise<Install> {
  const where = opts.prefix ?? tempPrefix();
  const script = opts.script ?? join(release.root, "install.sh");
  const result = await runCommand([opts.shell ?? SH, script, "--prefix", where.prefix, ...args], {
    env: {
      PATH: opts.path ?? process.env.PATH!,
      HOME: where.home,
      FERMIX_RELEASES_URL: opts.releasesUrl ?? server.manifestUrl,
      ...opts.env,
    },
  });
  return { ...result, bin: where.bin, home: where.home };
}

async function server(): Promise<ReleaseServer> {
  const s = await serveRelease(release.root);
  defer(() => s.close());
  return s;
}

/**
 * A PATH holding only what install.sh needs, without cosign and openssl: the installer then falls back to
 * the downloaded binary's own `verify-release`.
 */
function pathWithout(...missing: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "fx-path-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  const tools = ["uname", "tr", "sed", "awk", "grep", "head", "cat", "mkdir", "mktemp", "rm", "chmod", "mv", "id"];
  for (const tool of [...tools, "curl", "wget", "sha256sum", "shasum", "openssl", "cosign"]) {
    const found = Bun.which(tool);
    if (found && !missing.includes(tool)) symlinkSync(found, join(dir, tool));
  }
  return dir;
}

/** An earlier install of 0.1.0, as a refused run must leave it. */
function preinstalled(): ReturnType<typeof tempPrefix> & { file: string; sum: string } {
  const prefix = tempPrefix();
  mkdirSync(prefix.bin, { recursive: true });
  const file = join(prefix.bin, "fermix");
  copyFileSync(release.binary("0.1.0"), file);
  chmodSync(file, 0o755);
  return { ...prefix, file, sum: sha256(release.binary("0.1.0")) };
}

function expectUntouched(before: ReturnType<typeof preinstalled>, result: Install): void {
  expect(result.code).toBe(1);
  expect(sha256(before.file)).toBe(before.sum);
  expect(statSync(before.file).mode & 0o777).toBe(0o755);
  // No temp directory or partial download is left next to it.
  expect(readdirSync(before.bin)).toEqual(["fermix"]);
  expect(result.stderr).toMatch(/fermix install: next: /);
}

describe("install.sh", () => {
  test("installs the version asked for, 0755, checked by sha256 and a pinned-key signature", async () => {
    const s = await server();
    const result = await install(s, ["--version", "0.1.0"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const file = join(result.bin, "fermix");
    expect(statSync(file).mode & 0o777).toBe(0o755);
    expect(sha256(file)).toBe(sha256(release.binary("0.1.0")));
    expect(Bun.spawnSync([file, "--version"]).stdout.toString()).toBe("0.1.0\n");
    expect(readdirSync(result.bin)).toEqual(["fermix"]);
    expect(result.stdout).toContain(`Downloading fermix 0.1.0 for ${release.target}`);
    expect(result.stdout).toContain(`sha256 ok: ${sha256(release.binary("0.1.0"))}`);
    expect(result.stdout).toContain(
      "signature ok: verified with openssl against the release key pinned in this installer",
    );
    expect(result.stdout).toContain(`${result.bin} is not on your PATH`);
    expect(result.stdout).toContain(`export PATH="${result.bin}:$PATH"`);
    // Not a terminal: no prompt, the next step is printed.
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe(`Next: ${file} setup`);
    expect(s.hits).not.toContain(`/v0.2.0/${release.name}`);
  });

  test("writes completions for the shells this machine has, where each looks for them, unless told not to", async () => {
    const s = await server();
    const result = await install(s, ["--version", "0.2.0", "--yes"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const share = join(result.home, ".local", "share");
    const files = {
      bash: join(share, "bash-completion", "completions", "fermix"),
      zsh: join(share, "zsh", "site-functions", "_fermix"),
      fish: join(result.home, ".config", "fish", "completions", "fermix.fish"),
    };
    for (const [shell, file] of Object.entries(files)) {
      // Only for a shell that is installed here (this test's PATH is the machine's).
      expect({ shell, written: existsSync(file) }).toEqual({ shell, written: Bun.which(shell) !== null });
    }
    if (Bun.which("bash")) {
      expect(readFileSync(files.bash, "utf8")).toContain("complete -F _fermix_completion fermix");
      expect(result.stdout).toContain(`Completions for bash: ${files.bash}\n`);
    }
    expect(result.stdout.trimEnd().split("\n").at(-1)).toStartWith("Next: ");

    const skipped = await install(s, ["--version", "0.2.0", "--yes", "--no-completions"]);
    expect(skipped.code).toBe(0);
    expect(existsSync(join(skipped.home, ".local"))).toBe(false);
    expect(skipped.stdout).not.toContain("Completions for");
  });

  test("a completion it cannot write is a note, never a failed install", async () => {
    if (!Bun.which("bash")) return console.warn("skipped: bash is not installed");
    const s = await server();
    const prefix = tempPrefix();
    // XDG_DATA_HOME is a file, so no folder can be made under it.
    const blocked = join(prefix.home, "not-a-dir");
    writeFileSync(blocked, "");
    const result = await install(s, ["--version", "0.2.0", "--yes"], { prefix, env: { XDG_DATA_HOME: blocked } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `note: bash completions were not written to ${blocked}/bash-completion/completions/fermix (fermix is installed all the same)`,
    );
    expect(Bun.spawnSync([join(prefix.bin, "fermix"), "--version"]).stdout.toString()).toBe("0.2.0\n");
  });

  test("installs the latest by default, and running it again changes nothing", async () => {
    const s = await server();
    const prefix = tempPrefix();
    const first = await install(s, [], { prefix });
    expect(first.code).toBe(0);
    const file = join(prefix.bin, "fermix");
    expect(Bun.spawnSync([file, "--version"]).stdout.toString()).toBe("0.2.0\n");
    const inode = statSync(file).ino;
    const again = await install(s, ["--yes"], { prefix });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("is already installed");
    expect(statSync(file).ino).toBe(inode);
    expect(readdirSync(prefix.bin)).toEqual(["fermix"]);
  });

  test("replaces an older install in place and says a running service needs a restart", async () => {
    const s = await server();
    const before = preinstalled();
    const result = await install(s, [], { prefix: before });
    expect(result.code).toBe(0);
    expect(sha256(before.file)).toBe(sha256(release.binary("0.2.0")));
    expect(result.stdout).toContain(
      "(was 0.1.0; a running fermix service keeps the old version until: fermix restart)",
    );
    expect(readdirSync(before.bin)).toEqual(["fermix"]);
  });

  test("without cosign or openssl, the downloaded binary checks its own signature, and says what that is worth", async () => {
    const s = await server();
    const result = await install(s, ["--version", "0.1.0"], { path: pathWithout("openssl", "cosign") });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "signature ok: checked by the downloaded binary itself (fermix verify-release), because neither cosign nor openssl is installed.",
    );
    expect(result.stdout).toContain("not a forged release");
  });

  test("the source tree's copy, which pins no key, says it fell back to the binary's own check", async () => {
    const s = await server();
    const result = await install(s, ["--version", "0.1.0"], { script: join(ROOT, "install.sh") });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("(fermix verify-release), because this copy of install.sh pins no release key.");
  });

  test("runs the same under bash", async () => {
    const bash = Bun.which("bash");
    if (!bash) return console.warn("skipped: bash is not installed");
    const s = await server();
    const result = await install(s, ["--version", "0.1.0", "--yes"], { shell: bash });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(sha256(join(result.bin, "fermix"))).toBe(sha256(release.binary("0.1.0")));
  });

  test("wget works when curl is absent", async () => {
    if (!Bun.which("wget")) return console.warn("skipped: wget is not installed");
    const s = await server();
    const result = await install(s, ["--version", "0.1.0"], { path: pathWithout("curl") });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(sha256(join(result.bin, "fermix"))).toBe(sha256(release.binary("0.1.0")));
  });

  test("in a terminal it shows download progress and offers setup through /dev/tty", async () => {
    // util-linux `script` gives the installer a pseudo-terminal; what it reads from stdin is typed into it.
    if (!Bun.which("script")) return console.warn("skipped: util-linux script is not installed");
    const s = await server();
    const { prefix, bin, home } = tempPrefix();
    const command = `${SH} ${join(release.root, "install.sh")} --prefix ${prefix} --version 0.1.0`;
    const proc = Bun.spawn(["script", "-qec", command, "/dev/null"], {
      env: { PATH: process.env.PATH!, HOME: home, FERMIX_RELEASES_URL: s.manifestUrl },
      stdin: new TextEncoder().encode("n\n"),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, out] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
    expect(code).toBe(0);
    expect(out).toContain("100.0%");
    expect(out).toContain(`Run "${bin}/fermix setup" now to configure a provider and the service? [Y/n] `);
    expect(out.trimEnd().endsWith(`Next: ${bin}/fermix setup`)).toBe(true);
  });

  describe("refuses, leaving an existing install byte-identical", () => {
    const artifact = () => `/v0.2.0/${release.name}`;

    test("when the binary is not there (404)", async () => {
      const s = await server();
      s.override(artifact(), { status: 404 });
      const before = preinstalled();
      const result = await install(s, [], { prefix: before });
      expectUntouched(before, result);
      expect(result.stderr).toContain(`could not download http://127.0.0.1:`);
      expect(result.stderr).toContain("nothing was changed");
    });

    test("when the download does not match the release's sha256", async () => {
      const s = await server();
      s.override(artifact(), { body: readFileSync(release.binary("0.1.0")) });
      const before = preinstalled();
      const result = await install(s, [], { prefix: before });
      expectUntouched(before, result);
      expect(result.stderr).toMatch(/the download's sha256 is [0-9a-f]{64}, but the release lists [0-9a-f]{64}/);
    });

    test("when the download is cut short of its Content-Length", async () => {
      const s = await server();
      const bytes = readFileSync(release.binary("0.2.0"));
      s.override(artifact(), { body: bytes, truncateTo: Math.floor(bytes.byteLength / 2) });
      const before = preinstalled();
      const result = await install(s, [], { prefix: before });
      expectUntouched(before, result);
      expect(result.stderr).toContain("could not download");
    });

    test("when an artifact URL points off the manifest's origin, before downloading anything", async () => {
      const s = await server();
      const elsewhere = s.origin.replace("127.0.0.1", "localhost");
      const tampered = servedText(s, release.root, "releases.json").replace(
        `${s.origin}/v0.2.0/${release.name}"`,
        `${elsewhere}/v0.2.0/${release.name}"`,
      );
      s.override("/releases.json", { body: tampered });
      const before = preinstalled();
      const result = await install(s, [], { prefix: before });
      expectUntouched(before, result);
      expect(result.stderr).toContain(
        `refusing ${elsewhere}/v0.2.0/${release.name}: it is outside the release origin ${s.origin}`,
      );
      expect(s.hits).toEqual(["/releases.json"]);
    });

    for (const verifier of ["openssl", "the binary's verify-release"] as const) {
      test(`when the signature was made for another target (checked by ${verifier})`, async () => {
        const s = await server();
        const claim = {
          name: release.name,
          version: "0.2.0",
          target: "linux-arm64",
          sha256: sha256(release.binary("0.2.0")),
        };
        s.override(`${artifact()}.sigstore.json`, { body: JSON.stringify(signRelease(claim, DEV_PRIVATE_KEY)) });
        const before = preinstalled();
        const path = verifier === "openssl" ? undefined : pathWithout("openssl", "cosign");
        const result = await install(s, [], { prefix: before, path });
        expectUntouched(before, result);
        expect(result.stderr).toContain("the signature does not verify");
        expect(result.stdout).not.toContain("signature ok");
      });
    }

    test("when the version asked for does not exist, naming those that do", async () => {
      const s = await server();
      const before = preinstalled();
      const result = await install(s, ["--version", "9.9.9"], { prefix: before });
      expectUntouched(before, result);
      expect(result.stderr).toContain("there is no release 9.9.9 (published: 0.2.0 0.1.0");
    });

    test("when the installed fermix is Homebrew's, pointing at brew instead", async () => {
      const s = await server();
      const prefix = tempPrefix();
      const cellar = join(prefix.home, "Cellar", "fermix", "0.1.0", "bin");
      mkdirSync(cellar, { recursive: true });
      mkdirSync(prefix.bin, { recursive: true });
      copyFileSync(release.binary("0.1.0"), join(cellar, "fermix"));
      symlinkSync(join(cellar, "fermix"), join(prefix.bin, "fermix"));
      const result = await install(s, [], { prefix });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("is Homebrew's fermix");
      expect(result.stderr).toContain("next: run: brew upgrade fermix");
      expect(readdirSync(prefix.bin)).toEqual(["fermix"]);
      expect(s.hits).toEqual([]);
    });

    test("when the release list would come over plain http from another host", async () => {
      const s = await server();
      const before = preinstalled();
      const releasesUrl = "http://releases.example.invalid/releases.json";
      const result = await install(s, [], { prefix: before, releasesUrl });
      expectUntouched(before, result);
      expect(result.stderr).toContain(`refusing ${releasesUrl}: releases are fetched over https`);
    });

    test("when the release list is not reachable", async () => {
      const s = await server();
      s.override("/releases.json", { status: 500 });
      const before = preinstalled();
      const result = await install(s, [], { prefix: before });
      expectUntouched(before, result);
      expect(result.stderr).toContain(`could not download the release list ${s.manifestUrl}`);
    });
  });

  test("the source tree's copy defaults to the project's release location and pins no key", () => {
    const source = readFileSync(join(ROOT, "install.sh"), "utf8");
    expect(installScriptDefaultUrl(source)).toBe(RELEASES_MANIFEST_URL);
    expect(source.split("\n").filter((line) => line === KEY_MARKER)).toHaveLength(1);
    expect(source).not.toContain("-----BEGIN PUBLIC KEY-----");
  });

  test("is clean under shellcheck -s sh (source and released copies)", () => {
    if (!Bun.which("shellcheck")) {
      console.warn("skipped: shellcheck is not installed (apt-get install shellcheck)");
      return;
    }
    for (const script of [join(ROOT, "install.sh"), join(release.root, "install.sh")]) {
      const check = Bun.spawnSync(["shellcheck", "-s", "sh", script]);
      expect(check.stdout.toString()).toBe("");
      expect(check.exitCode).toBe(0);
    }
  });
});
