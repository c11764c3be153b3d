import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fermixPaths } from "../../src/config/paths.ts";
import { createSecretStore, type RunCommand } from "../../src/config/secret-store.ts";
import type { SetupFlags } from "../../src/setup/answers.ts";
import type { SetupIo } from "../../src/setup/prompt.ts";
import { runSetup, type SetupDeps } from "../../src/setup/run-setup.ts";
import { tempHome } from "../fixture/home.ts";
import { fakeManager } from "../service/service-fixture.ts";

export const BINARY = "/opt/fermix/bin/fermix";

/**
 * A terminal that answers setup's questions in order: each answer is typed only once a question containing
 * its expected words has been written, so the test checks the order of questions as it goes. A question that
 * does not match fails the run; after the last answer the input ends.
 */
export function scriptedTerminal(steps: Array<[question: string, answer: string]>) {
  let output = "";
  let asked = 0;
  const raw: boolean[] = [];
  let wake: (() => void) | undefined;
  const nextQuestion = async (): Promise<string> => {
    for (;;) {
      const pending = output.slice(asked);
      if (pending.endsWith(": ")) {
        asked = output.length;
        return pending;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
  const io: SetupIo = {
    isTTY: true,
    input: (async function* () {
      for (const [question, answer] of steps) {
        const text = await nextQuestion();
        if (!text.includes(question)) throw new Error(`expected a question with "${question}", got:\n${text}`);
        yield `${answer}\n`;
      }
    })(),
    write: async (text) => {
      output += text;
      wake?.();
    },
    setRawMode: (on) => raw.push(on),
  };
  return { io, output: () => output, raw };
}

/** Not a terminal: flags only, `stdin` is what is piped in. */
export function pipedIo(stdin = "") {
  let output = "";
  const io: SetupIo = {
    isTTY: false,
    input: (async function* () {
      if (stdin) yield new TextEncoder().encode(stdin);
    })(),
    write: async (text) => {
      output += text;
    },
  };
  return { io, output: () => output };
}

/** A secret-tool that is not there: the store falls back to files, as on this machine. */
export const noKeyring: RunCommand = () => ({ ok: false, stdout: "", stderr: "" });

/**
 * A temp FERMIX_HOME and HOME, a fake systemctl first on PATH, and runSetup wired to them (Linux, a built
 * binary at BINARY, the file store). Nothing reaches the real keyring or service manager.
 */
export function setupWorld(defer: (undo: () => unknown) => void) {
  const h = tempHome();
  const fake = fakeManager();
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.remove());
  const paths = fermixPaths(h.home);
  const env: Record<string, string> = { FERMIX_HOME: h.home, HOME: h.userHome, PATH: fake.path, ...fake.env };
  const unit = join(h.userHome, ".config/systemd/user/fermix.service");
  const deps = (io: SetupIo, over: Partial<SetupDeps> = {}): SetupDeps => ({
    env,
    paths,
    io,
    store: createSecretStore({ secretsDir: paths.secrets, platform: "linux", run: noKeyring }),
    secretRun: noKeyring,
    service: { binary: () => BINARY, platform: "linux" },
    ...over,
  });
  return {
    h,
    fake,
    env,
    paths,
    unit,
    deps,
    run: (flags: SetupFlags, io: SetupIo, over: Partial<SetupDeps> = {}) => runSetup(flags, deps(io, over)),
  };
}

/** Every file under `dir` with its mode and content: what "left unchanged" is checked against. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else out[path] = `${(st.mode & 0o777).toString(8)} ${readFileSync(path, "utf8")}`;
    }
  };
  walk(dir);
  return out;
}
