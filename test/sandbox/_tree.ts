import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, type SandboxDeps } from "../../src/sandbox/create-sandbox.ts";
import type { Sandbox, SandboxCaller, SandboxMode } from "../../src/sandbox/types.ts";

/**
 * A fake machine in a temp dir: a user home with credentials in it, a FERMIX_HOME inside that home, a
 * project to run from, a granted directory and an "outside" directory nothing may touch. Never the real
 * home. `base` is where it lives; tests that run bubblewrap pass one outside /tmp, which bwrap replaces.
 */
export type Tree = ReturnType<typeof makeTree>;

export function makeTree(base: string = tmpdir()) {
  const root = mkdtempSync(join(base, "fx-sbx-"));
  const home = join(root, "home");
  const fermixHome = join(home, ".fermix");
  const workspace = join(fermixHome, "workspace");
  const project = join(home, "projects", "app");
  const granted = join(root, "granted");
  const outside = join(root, "outside");
  const files: Record<string, string> = {
    [join(home, ".ssh", "id_rsa")]: "PRIVATE KEY",
    [join(home, ".aws", "credentials")]: "[default]\naws_secret_access_key = x",
    [join(home, ".docker", "config.json")]: '{"auths":{}}',
    [join(home, ".docker", "daemon.json")]: "{}",
    [join(home, "notes.txt")]: "notes",
    [join(fermixHome, "config.toml")]: "[sandbox]\n",
    [join(fermixHome, "memory.db")]: "SQLite",
    [join(workspace, "plain.txt")]: "plain",
    [join(project, "README.md")]: "readme",
    [join(granted, "data.txt")]: "data",
    [join(outside, "secret.txt")]: "outside secret",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(path, text);
  }
  mkdirSync(join(root, "granted-evil"));
  mkdirSync(join(root, "home-evil"));

  const operator: SandboxCaller = { trust: "operator", local: true, cwd: project };
  const remoteOperator: SandboxCaller = { trust: "operator", local: false, cwd: project };
  const guest: SandboxCaller = { trust: "guest", local: true, cwd: project };

  return {
    root,
    home,
    fermixHome,
    workspace,
    project,
    granted,
    outside,
    operator,
    remoteOperator,
    guest,
    sandbox(mode: SandboxMode, extra: Partial<SandboxDeps> = {}): Sandbox {
      return createSandbox({
        userHome: home,
        fermixHome,
        config: { mode, allowed_roots: [granted] },
        which: () => null,
        ...extra,
      });
    },
    [Symbol.dispose]() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Every entry under `dir` with its kind and contents, to prove a denied attempt changed nothing. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) out[path] = `link -> ${readlinkSync(path)}`;
    else if (stat.isFile()) out[path] = `file ${stat.nlink} ${readFileSync(path, "utf8")}`;
    else if (stat.isDirectory()) {
      out[path] = "dir";
      for (const name of readdirSync(path)) walk(join(path, name));
    }
  };
  walk(dir);
  return out;
}

export const MODES: SandboxMode[] = ["strict", "standard", "open"];
