import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../src/config/load.ts";
import { type Grantable, grantPath, revokePath, setMode } from "../../src/config/sandbox-edit.ts";
import { createSandbox } from "../../src/sandbox/create-sandbox.ts";
import { tempHome } from "../fixture/home.ts";

const anyPath: Grantable = async (path) => ({ ok: true, path });

/** A config as a person writes it: comments everywhere, odd spacing, a multi-line list with a comment in it. */
const HAND_WRITTEN = `# fermix config — hand edited, keep my notes
[fermix_core.providers.openai]
primary = true   # the main one
api_key = "@keyring"

# The sandbox: careful here.
[sandbox]
# standard lets fermix work where I run it
mode = "standard"
allowed_roots = [
  "/srv/code",   # work repos
  # "/srv/old", disabled for now
  "/srv/data",
]
blocked_roots = ["/srv/code/secrets"]   # never
# trailing comment inside [sandbox]

[mcp.servers.files]
command = "npx"   # comment in another table
args = ["-y", "@modelcontextprotocol/server-filesystem"]
`;

function configFile(text?: string) {
  const h = tempHome();
  const file = text === undefined ? join(h.home, "config.toml") : h.writeConfig(text);
  return { h, file, read: () => readFileSync(file, "utf8") };
}

describe("grant, revoke and mode edits keep the file the user wrote", () => {
  test("grant adds one line in the list's own style; revoke restores the file byte for byte", async () => {
    const { h, file, read } = configFile(HAND_WRITTEN);
    await using _ = h;
    const granted = await grantPath(file, "/srv/new project", anyPath);
    expect(granted.changed).toBe(true);
    expect(read()).toBe(HAND_WRITTEN.replace(`  "/srv/data",\n`, `  "/srv/data",\n  "/srv/new project",\n`));
    await revokePath(file, "/srv/new project");
    expect(read()).toBe(HAND_WRITTEN);
  });

  test("revoking an entry that carries a comment removes that line only", async () => {
    const { h, file, read } = configFile(HAND_WRITTEN);
    await using _ = h;
    await revokePath(file, "/srv/code");
    expect(read()).toBe(HAND_WRITTEN.replace(`  "/srv/code",   # work repos\n`, ""));
    expect(parseConfig(read(), file).sandbox?.allowed_roots).toEqual(["/srv/data"]);
  });

  test("mode changes touch only the value", async () => {
    const { h, file, read } = configFile(HAND_WRITTEN);
    await using _ = h;
    await setMode(file, "open");
    expect(read()).toBe(HAND_WRITTEN.replace('mode = "standard"', 'mode = "open"'));
    expect((await setMode(file, "open")).changed).toBe(false);
    await setMode(file, "standard");
    expect(read()).toBe(HAND_WRITTEN);
  });

  test("a single-line list, an empty list and a missing key", async () => {
    const { h, file, read } = configFile(`[sandbox] # mine\nallowed_roots = ["/a"] # one\nmode = "strict"\n`);
    await using _ = h;
    await grantPath(file, "/b", anyPath);
    expect(read()).toBe(`[sandbox] # mine\nallowed_roots = ["/a", "/b"] # one\nmode = "strict"\n`);
    await revokePath(file, "/a");
    expect(read()).toBe(`[sandbox] # mine\nallowed_roots = ["/b"] # one\nmode = "strict"\n`);
    await revokePath(file, "/b");
    expect(read()).toBe(`[sandbox] # mine\nallowed_roots = [] # one\nmode = "strict"\n`);
    await grantPath(file, "/c", anyPath);
    expect(read()).toBe(`[sandbox] # mine\nallowed_roots = ["/c"] # one\nmode = "strict"\n`);

    writeFileSync(file, `[sandbox]\nmode = "open" # all of it\n\n# providers next\n[fermix_core]\n`);
    await grantPath(file, "/d", anyPath);
    expect(read()).toBe(
      `[sandbox]\nmode = "open" # all of it\nallowed_roots = ["/d"]\n\n# providers next\n[fermix_core]\n`,
    );
  });

  test("a file without [sandbox] gets the table appended; a missing file is created 0600", async () => {
    const { h, file, read } = configFile(`# only a comment\n[fermix_core]\nprofile = "dev"`);
    await using _ = h;
    await setMode(file, "strict");
    expect(read()).toBe(`# only a comment\n[fermix_core]\nprofile = "dev"\n\n[sandbox]\nmode = "strict"\n`);

    const fresh = join(h.home, "new", "config.toml");
    await grantPath(fresh, "/e", anyPath);
    expect(readFileSync(fresh, "utf8")).toBe(`[sandbox]\nallowed_roots = ["/e"]\n`);
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(h.home, "new"))).toEqual(["config.toml"]);
  });

  test("a [sandbox.commands] sub-table before any [sandbox] header still gets a proper table", async () => {
    const { h, file, read } = configFile(
      `[sandbox.commands.deploy]\ncommand = ["make", "deploy"]\ndescription = "Deploy the site"\n`,
    );
    await using _ = h;
    await grantPath(file, "/f", anyPath);
    expect(parseConfig(read(), file).sandbox).toEqual({
      commands: { deploy: { command: ["make", "deploy"], description: "Deploy the site" } },
      allowed_roots: ["/f"],
    });
  });

  test("CRLF files stay CRLF, and paths needing escapes round-trip", async () => {
    const { h, file, read } = configFile(`[sandbox]\r\nallowed_roots = [\r\n  "/a",\r\n]\r\n`);
    await using _ = h;
    await grantPath(file, '/odd "dir"\\x', anyPath);
    expect(read()).toBe(`[sandbox]\r\nallowed_roots = [\r\n  "/a",\r\n  "/odd \\"dir\\"\\\\x",\r\n]\r\n`);
    expect(parseConfig(read(), file).sandbox?.allowed_roots).toEqual(["/a", '/odd "dir"\\x']);
    await revokePath(file, '/odd "dir"\\x');
    expect(read()).toBe(`[sandbox]\r\nallowed_roots = [\r\n  "/a",\r\n]\r\n`);
  });
});

describe("what the edits refuse", () => {
  test("granting twice changes nothing; revoking what is not granted says so", async () => {
    const { h, file, read } = configFile(HAND_WRITTEN);
    await using _ = h;
    expect((await grantPath(file, "/srv/data", anyPath)).changed).toBe(false);
    expect(read()).toBe(HAND_WRITTEN);
    const error = await revokePath(file, "/srv/other").catch((e) => e);
    expect(error.code).toBe("sandbox_not_granted");
    expect(error.message).toBe(`/srv/other is not a granted root in ${file} (granted: /srv/code, /srv/data).`);
    expect(read()).toBe(HAND_WRITTEN);
  });

  test("revoke matches ~ entries and the same directory written differently", async () => {
    const { h, file, read } = configFile(`[sandbox]\nallowed_roots = ["~/code", "/srv/x/"]\n`);
    await using _ = h;
    await revokePath(file, join(h.userHome, "code"), { userHome: h.userHome });
    await revokePath(file, "/srv/x");
    expect(read()).toBe(`[sandbox]\nallowed_roots = []\n`);
  });

  test("a path the predicate refuses is not written, with the predicate's reason", async () => {
    const { h, file, read } = configFile(HAND_WRITTEN);
    await using _ = h;
    const refuse: Grantable = async () => ({
      ok: false,
      reason: "/home/u can't be granted: it is your home directory",
    });
    const error = await grantPath(file, "/home/u", refuse).catch((e) => e);
    expect(error.code).toBe("sandbox_not_grantable");
    expect(error.message).toContain("it is your home directory");
    expect(read()).toBe(HAND_WRITTEN);
  });

  test("granting through the sandbox stores the canonical path and refuses the home", async () => {
    const { h, file, read } = configFile(HAND_WRITTEN);
    await using _ = h;
    const project = join(h.userHome, "projects", "app");
    mkdirSync(project, { recursive: true });
    const sandbox = createSandbox({ userHome: h.userHome, fermixHome: h.home, config: undefined, which: () => null });
    const isGrantable: Grantable = (p) => sandbox.isGrantable(p);
    expect((await grantPath(file, `${project}/../app/`, isGrantable)).path).toBe(project);
    expect(parseConfig(read(), file).sandbox?.allowed_roots).toContain(project);
    expect((await grantPath(file, h.userHome, isGrantable).catch((e) => e)).code).toBe("sandbox_not_grantable");
  });

  test("an invalid file is left for its owner to fix", async () => {
    const broken = `[sandbox]\nmode = "sideways"\n`;
    const { h, file, read } = configFile(broken);
    await using _ = h;
    expect((await setMode(file, "open").catch((e) => e)).code).toBe("config_invalid");
    expect(read()).toBe(broken);
  });

  test("[sandbox] written as dotted keys at the top is not guessed at", async () => {
    const dotted = `sandbox.mode = "open"\n`;
    const { h, file, read } = configFile(dotted);
    await using _ = h;
    expect((await grantPath(file, "/x", anyPath).catch((e) => e)).code).toBe("config_edit_failed");
    expect(read()).toBe(dotted);
  });
});
