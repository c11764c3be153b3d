import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { buildSystemPrompt } from "../../src/agent/prompt.ts";
import { readPromptFiles, reconcileAgentName, seedPromptFiles } from "../../src/agent/prompt-files.ts";
import { fermixPaths } from "../../src/config/paths.ts";
import { tempHome } from "../fixture/home.ts";

describe("prompt files", () => {
  test("are seeded once from the shipped templates and never overwritten", async () => {
    await using h = tempHome();
    const paths = fermixPaths(h.home);
    expect(seedPromptFiles(paths, "Ada")).toEqual(["identity", "soul", "guidance", "user", "memory"]);
    expect(readFileSync(paths.promptFiles.identity, "utf8")).toContain("**Name:** Ada");
    writeFileSync(paths.promptFiles.soul, "My own soul.\n");
    expect(seedPromptFiles(paths, "Ada")).toEqual([]);
    expect(readFileSync(paths.promptFiles.soul, "utf8")).toBe("My own soul.\n");
  });

  test("the configured name is reconciled into IDENTITY.md's Name line; other edits and an unset name are left alone", async () => {
    await using h = tempHome();
    const paths = fermixPaths(h.home);
    seedPromptFiles(paths, "fermix");
    writeFileSync(paths.promptFiles.identity, `${readFileSync(paths.promptFiles.identity, "utf8")}\nMy extra line.\n`);
    expect(reconcileAgentName(paths, "Jarvis")).toBe(true);
    const text = readFileSync(paths.promptFiles.identity, "utf8");
    expect(text).toContain("**Name:** Jarvis");
    expect(text).toContain("My extra line.");
    expect(reconcileAgentName(paths, "Jarvis")).toBe(false);
    expect(reconcileAgentName(paths, "  ")).toBe(false);
    expect(readFileSync(paths.promptFiles.identity, "utf8")).toBe(text);
  });

  test("the runtime prompt keeps a stable order and stamps only the date", async () => {
    await using h = tempHome();
    const paths = fermixPaths(h.home);
    seedPromptFiles(paths, "Ada");
    writeFileSync(paths.promptFiles.user, "# About the owner\n- prefers metric units");
    const prompt = buildSystemPrompt({
      agentName: "Ada",
      now: new Date("2026-11-29T15:42:00Z"),
      timezone: "Europe/Paris",
      tools: [],
      files: readPromptFiles(paths),
      skillsIndex: "## Skills\n- self-knowledge: what fermix is",
      summary: "earlier we talked about units",
    });
    const order = [
      "**Name:** Ada",
      "# Soul",
      "# How to work",
      "prefers metric units",
      "# Working memory",
      "## Built-in Capability Catalog",
      "## Skills",
      "Today's date is 2026-11-29",
      "## Earlier in this conversation",
    ];
    const positions = order.map((s) => prompt.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt).not.toContain("15:42");
  });
});
