import { describe, expect, test } from "bun:test";
import { profileAddendum, subagentCaps } from "../../src/agent/run-profile.ts";
import { CANNED } from "../../src/gateway/canned-replies.ts";
import { defineSlashCommand } from "../../src/gateway/slash/command.ts";
import { createSlashRegistry, handleSlash, mayUse, parseSlash } from "../../src/gateway/slash.ts";
import { createSkillCatalog } from "../../src/skills/catalog.ts";
import { fakeSlashContext, GUEST, LOCAL_OWNER, OWNER } from "../fixture/slash-context.ts";
import { fakeEmbedded, skillText, tempSkillsDir } from "../skills/_fixture.ts";

const EVERYONE = ["help", "whoami", "new", "clear"];
const OWNER_ONLY = ["compact", "skills", "soul", "background", "bg", "tasks", "ultra", "pause", "resume"];
const OPERATOR_ONLY = ["stop", "sandbox", "confirm", "deny", "grant", "revoke"];
const ALL = [...EVERYONE, ...OWNER_ONLY, ...OPERATOR_ONLY];

/** The command each name reaches in the shipped registry (through handleSlash's own parsing). */
async function refused(name: string, ctx: ReturnType<typeof fakeSlashContext>["ctx"]): Promise<boolean> {
  return (await handleSlash(`/${name}`, ctx)) === CANNED.ownerOnly;
}

describe("slash command parsing", () => {
  test("the first token is /name, lower-cased; anything that is not a name is text for the model", () => {
    expect(parseSlash("/help")).toEqual({ name: "help", args: "" });
    expect(parseSlash("  /HeLp   me please ")).toEqual({ name: "help", args: "me please" });
    expect(parseSlash("/ultra line one\nline two")).toEqual({ name: "ultra", args: "line one\nline two" });
    expect(parseSlash("/etc/hosts looks odd")).toBeUndefined();
    expect(parseSlash("/1abc")).toBeUndefined();
    expect(parseSlash("/foo-bar")).toBeUndefined();
    expect(parseSlash("/")).toBeUndefined();
    expect(parseSlash("hello /help")).toBeUndefined();
  });

  test("unknown commands and plain text pass through (undefined), whoever asks", async () => {
    const { ctx } = fakeSlashContext();
    for (const caller of [OWNER, GUEST]) {
      expect(await handleSlash("/frobnicate now", { ...ctx, caller })).toBeUndefined();
      expect(await handleSlash("/etc/passwd is readable?", { ...ctx, caller })).toBeUndefined();
      expect(await handleSlash("just text", { ...ctx, caller })).toBeUndefined();
    }
  });

  test("a registry refuses a name or alias declared twice, and a name that is not a command name", () => {
    const one = defineSlashCommand({ name: "one", access: "everyone", usage: "/one", summary: "", run: () => "1" });
    const clash = defineSlashCommand({
      name: "two",
      aliases: ["one"],
      access: "everyone",
      usage: "/two",
      summary: "",
      run: () => "2",
    });
    expect(() => createSlashRegistry([one, clash])).toThrow("slash command /one is declared twice (by /one and /two)");
    expect(() => createSlashRegistry([one, one])).toThrow("declared twice");
    const bad = defineSlashCommand({ name: "Bad-Name", access: "everyone", usage: "", summary: "", run: () => "" });
    expect(() => createSlashRegistry([bad])).toThrow("is not");
    expect(createSlashRegistry([one, { ...clash, aliases: ["deux"] }]).find("deux")?.name).toBe("two");
  });
});

describe("slash command authorization", () => {
  test("the owner may use every command", async () => {
    const { ctx } = fakeSlashContext();
    for (const name of ALL) expect(await refused(name, ctx)).toBe(false);
  });

  test("a guest gets the everyone-commands and is refused the rest with the owner-permissions sentence", async () => {
    const { ctx } = fakeSlashContext({ caller: GUEST });
    for (const name of EVERYONE) expect(await refused(name, ctx)).toBe(false);
    for (const name of [...OWNER_ONLY, ...OPERATOR_ONLY]) expect(await refused(name, ctx)).toBe(true);
  });

  test("command_allowlist opens owner-only commands to a guest, never the sandbox family or /stop", async () => {
    const { ctx } = fakeSlashContext({ caller: GUEST, commandAllowlist: ALL.map((n) => `/${n.toUpperCase()}`) });
    for (const name of [...EVERYONE, ...OWNER_ONLY]) expect(await refused(name, ctx)).toBe(false);
    for (const name of OPERATOR_ONLY) expect(await refused(name, ctx)).toBe(true);
  });

  test("an allowlist entry covers the command by its name or an alias", async () => {
    const { ctx } = fakeSlashContext({ caller: GUEST, commandAllowlist: ["bg"] });
    expect(await refused("background", ctx)).toBe(false);
    expect(await refused("bg", ctx)).toBe(false);
    expect(await refused("tasks", ctx)).toBe(true);
  });

  test("approval-family commands refuse an owner who is not there (a detached or scheduled run)", () => {
    const { ctx } = fakeSlashContext({ caller: { ...OWNER, attended: false } });
    const registry = createSlashRegistry([
      defineSlashCommand({ name: "x", access: "operator_only", usage: "", summary: "", run: () => "" }),
      defineSlashCommand({ name: "y", access: "owner_only", usage: "", summary: "", run: () => "" }),
    ]);
    expect(mayUse(registry.find("x")!, ctx)).toBe(false);
    expect(mayUse(registry.find("y")!, ctx)).toBe(true);
  });
});

describe("/help and /whoami", () => {
  test("/help lists only what this caller may use here; /stop is there for the owner in a chat", async () => {
    const { ctx } = fakeSlashContext();
    const owner = (await handleSlash("/help", ctx)) as string;
    expect(owner).toStartWith("Commands you can use here:\n/help — ");
    for (const usage of [
      "/stop",
      "/sandbox",
      "/grant PATH",
      "/soul",
      "/background PROMPT (also /bg)",
      "/tasks",
      "/ultra PROMPT",
    ])
      expect(owner).toContain(`\n${usage}`);
    expect(owner).toContain("/new (also /clear) — ");

    const guest = (await handleSlash("/help", { ...ctx, caller: GUEST })) as string;
    expect(guest.split("\n").filter((l) => l.startsWith("/"))).toEqual([
      "/help — the commands you can use here",
      "/whoami — who fermix takes you for here",
      "/new (also /clear) — start a fresh conversation (earlier messages stay searchable)",
    ]);

    const allowed = (await handleSlash("/help", {
      ...ctx,
      caller: GUEST,
      commandAllowlist: ["soul", "grant"],
    })) as string;
    expect(allowed).toContain("\n/soul — ");
    expect(allowed).not.toContain("/grant");
  });

  test("from the CLI, /help leaves out the chat-only commands", async () => {
    const { ctx } = fakeSlashContext({ caller: LOCAL_OWNER, surface: "cli", senderId: undefined });
    const help = (await handleSlash("/help", ctx)) as string;
    expect(help).toContain("\n/whoami");
    expect(help).toContain("\n/ultra PROMPT");
    for (const chatOnly of ["/stop", "/background", "/tasks"]) expect(help).not.toContain(`\n${chatOnly}`);
  });

  test("/whoami says trust, channel, chat and sender", async () => {
    const { ctx } = fakeSlashContext({ conversation: { channel: "telegram", chat: "100", thread: "5" } });
    expect(await handleSlash("/whoami", ctx)).toBe("trust: owner\nchannel: telegram\nchat: 100\nthread: 5\nsender: 7");
    const guest = (await handleSlash("/whoami", { ...ctx, caller: GUEST, senderId: "42" })) as string;
    expect(guest).toStartWith("trust: guest (");
    expect(guest).toEndWith("sender: 42");
    const cli = await handleSlash("/WHOAMI", {
      ...ctx,
      caller: LOCAL_OWNER,
      surface: "cli",
      senderId: undefined,
      conversation: { channel: "cli", chat: "ses_1" },
    });
    expect(cli).toBe("trust: owner\nchannel: cli\nchat: ses_1 (the -s session)\nsender: this machine (the local CLI)");
  });
});

describe("conversation commands", () => {
  test("/new and /clear start a fresh conversation, for a guest too", async () => {
    const { ctx, state } = fakeSlashContext({ caller: GUEST });
    expect(await handleSlash("/new", ctx)).toBe(
      "Started a new conversation. The 3 earlier messages stay in memory, where recall can still find them, but the next turn no longer sees them.",
    );
    expect(await handleSlash("/clear", ctx)).toBe(
      "This conversation has no earlier messages in context: it is already fresh.",
    );
    expect(state.freshStarts).toBe(2);
  });

  test("/compact runs the context's compaction, or says it is not available", async () => {
    const { ctx } = fakeSlashContext();
    expect(await handleSlash("/compact", ctx)).toBe("Compaction is not available here.");
    expect(await handleSlash("/compact", { ...ctx, compact: async () => "Compacted: 4 earlier messages." })).toBe(
      "Compacted: 4 earlier messages.",
    );
  });

  test("/stop from the CLI explains where it works", async () => {
    const { ctx } = fakeSlashContext({ caller: LOCAL_OWNER, surface: "cli" });
    expect(await handleSlash("/stop", ctx)).toStartWith("/stop is for chat channels");
  });

  test("/pause and /resume say that computer use is not enabled", async () => {
    const { ctx } = fakeSlashContext();
    expect(await handleSlash("/pause", ctx)).toBe(
      "Computer use is not enabled in this fermix, so there is nothing to pause.",
    );
    expect(await handleSlash("/resume", ctx)).toBe(
      "Computer use is not enabled in this fermix, so there is nothing to resume.",
    );
  });
});

describe("/skills", () => {
  test("lists the skills with their source, and the ones that failed to load", async () => {
    await using home = tempSkillsDir();
    home.write("mine/SKILL.md", skillText("mine", "Use for my own things."));
    home.write("broken/SKILL.md", "no front matter");
    const embedded = fakeEmbedded({ "skills/guide/SKILL.md": skillText("guide", "Use for the guide.") });
    const skills = createSkillCatalog({ embedded, homeSkillsDir: home.dir });
    const { ctx } = fakeSlashContext({ skills });
    const reply = (await handleSlash("/skills", ctx)) as string;
    expect(reply).toStartWith("Skills (2):\n- guide [bundled; all your tools] Use for the guide.\n- mine [home; ");
    expect(reply).toContain("\ncould not load ");
    expect(await handleSlash("/skills", { ...ctx, skills: undefined })).toBe("Skills are not available here.");
  });
});

describe("/ultra", () => {
  test("the prompt becomes a turn tagged ultra; an empty one gets the usage", async () => {
    const { ctx } = fakeSlashContext();
    expect(await handleSlash("/ultra compare every SQLite WAL setting", ctx)).toEqual({
      turn: { text: "compare every SQLite WAL setting", runProfile: "ultra" },
    });
    expect(await handleSlash("/ultra", ctx)).toBe("Usage: /ultra <prompt>");
  });

  test("an ultra turn's subagent caps are the spec's wider ones, with an exhaustive-mode addendum", () => {
    expect(subagentCaps()).toEqual({ maxTasks: 10, maxConcurrency: 8, defaultConcurrency: 4, iterationLimit: 100 });
    expect(subagentCaps("ultra")).toEqual({
      maxTasks: 50,
      maxConcurrency: 12,
      defaultConcurrency: 12,
      iterationLimit: 30,
    });
    expect(profileAddendum()).toBeUndefined();
    expect(profileAddendum("ultra")).toStartWith("## Exhaustive mode (/ultra)");
  });
});
