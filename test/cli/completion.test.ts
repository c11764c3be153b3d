import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJobStore } from "../../src/jobs/job-store.ts";
import { openDatabase } from "../../src/memory/db.ts";
import { createMessageStore } from "../../src/memory/messages.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { runCommand } from "../fixture/cli.ts";
import { draft } from "../jobs/_fixture.ts";

/**
 * `fermix completion bash` sourced into a plain `bash --norc --noprofile` (no bash-completion package), its
 * completion function driven as readline would drive it: COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set,
 * the function called, COMPREPLY printed. `fermix` on PATH is the compiled binary.
 */
const root = mkdtempSync(join(tmpdir(), "fx-comp-"));
const bin = join(root, "bin");
const home = join(root, "h");
mkdirSync(bin);
mkdirSync(home, { mode: 0o700 });
symlinkSync(await fermixBinary(), join(bin, "fermix"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A recent `fermix ask -s work` conversation, for the session ids.
const db = openDatabase(join(home, "memory.db"));
createMessageStore(db).commitTurn(
  { channel: "cli", chat: "work" },
  [{ role: "user", content: [{ type: "text", text: "hello" }] }],
  { turnId: "turn_1" },
);
// A scheduled job, for the job ids.
const job = createJobStore(db).create(
  draft({
    name: "digest",
    scheduleExpr: "every 1 hour",
    timezone: "UTC",
    taskPrompt: "Summarise.",
    deliveryMode: "none",
  }),

  { nextRunAt: null, trust: "operator", createdIn: { channel: "cli", chat: "work" } },
);
db.close();

const env = (fermixHome = home) => ({ PATH: `${bin}:/usr/bin:/bin`, FERMIX_HOME: fermixHome, HOME: root });

/**
 * Each case is the words as bash splits them (an empty last word: the cursor after a space); the line is
 * the words joined by spaces, except around a `=` that bash split off (`--session=wo` is three words).
 */
async function completeInBash(cases: string[][], fermixHome?: string): Promise<string[]> {
  const line = (words: string[]) =>
    words.reduce((text, w, i) => (i === 0 ? w : w === "=" || words[i - 1] === "=" ? text + w : `${text} ${w}`), "");
  const quote = (w: string) => `'${w.replaceAll("'", "'\\''")}'`;
  const calls = cases.map((words) => `run ${[line(words), ...words].map(quote).join(" ")}`);
  const script = [readFileSync(join(import.meta.dir, "completion-driver.bash"), "utf8"), ...calls].join("\n");
  const r = await runCommand(["bash", "--norc", "--noprofile", "-c", script], { env: env(fermixHome) });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout
    .split("\n")
    .slice(0, cases.length)
    .map((out) => out.trim());
}

describe("fermix completion (compiled binary, plain bash)", () => {
  test("completes verbs, subcommands, options and the values this machine has", async () => {
    const got = await completeInBash([
      ["fermix", "pl"],
      ["fermix", "plugins", "enable", ""],
      ["fermix", "plugins", "auth", "set", "sl"],
      ["fermix", "plugins", "au"],
      ["fermix", "skills", "view", ""],
      ["fermix", "sandbox", "mode", ""],
      ["fermix", "ask", "-s", ""],
      ["fermix", "ask", "--ti"],
      ["fermix", "completion", ""],
      ["fermix", "verify"],
      ["fermix", "jobs", "p"],
      ["fermix", "jobs", "show", ""],
      ["fermix", "jobs", "list", "--state", "pa"],
    ]);
    expect(got[0]).toBe("plugins");
    // The embedded catalog's plugins.
    expect(got[1]!.split(" ")).toEqual(expect.arrayContaining(["github", "notion", "slack", "gmail"]));
    expect(got[2]).toBe("slack");
    expect(got[3]).toBe("auth");
    expect(got[4]).toBe("self-knowledge");
    expect(got[5]).toBe("strict standard open");
    expect(got[6]).toBe("work");
    expect(got[7]).toBe("--timeout");
    expect(got[8]).toBe("bash zsh fish");
    // Hidden verbs are not offered.
    expect(got[9]).toBe("");
    expect(got[10]).toBe("pause");
    expect(got[11]).toBe(job.id);
    expect(got[12]).toBe("paused");
  });

  test("--option=value: bash's split at `=` is undone before fermix is asked", async () => {
    const got = await completeInBash([
      ["fermix", "ask", "--session", "="],
      ["fermix", "ask", "--session", "=", "wo"],
    ]);
    expect(got).toEqual(["work", "work"]);
  });

  test("a broken config gives no candidates and no message in the prompt", async () => {
    const broken = join(root, "broken");
    mkdirSync(broken, { mode: 0o700 });
    writeFileSync(join(broken, "config.toml"), "[sandbox\nmode = ");
    expect(await completeInBash([["fermix", "plugins", "enable", ""]], broken)).toEqual([""]);
    const direct = await runCommand([join(bin, "fermix"), "complete", "--", "plugins", "enable", ""], {
      env: env(broken),
    });
    expect(direct).toEqual({ code: 0, stdout: ":4\n", stderr: "" });
  });

  test("the bash script stands alone; zsh and fish scripts come from tab", async () => {
    const bash = await runCommand([join(bin, "fermix"), "completion", "bash"], { env: env() });
    expect(bash.code).toBe(0);
    expect(bash.stdout).not.toMatch(/_get_comp_words_by_ref|_init_completion/);
    expect(bash.stdout).toContain("complete -F _fermix_completion fermix");
    for (const shell of ["zsh", "fish"]) {
      const r = await runCommand([join(bin, "fermix"), "completion", shell], { env: env() });
      expect({ shell, code: r.code, stderr: r.stderr }).toEqual({ shell, code: 0, stderr: "" });
      expect(r.stdout).toContain("fermix complete --");
    }
    expect((await runCommand([join(bin, "fermix"), "completion", "zsh"], { env: env() })).stdout).toStartWith(
      "#compdef fermix\n",
    );
  });
});
