import { describe, expect, test } from "bun:test";
import { createBm25Index, tokenize } from "../../../src/capabilities/deferral/bm25.ts";

describe("tokenize", () => {
  test("lower-cases, splits on anything not a letter or digit, folds plurals", () => {
    expect(tokenize("List Slack_channels, v2-API; issues & repositories")).toEqual([
      "list",
      "slack",
      "channel",
      "v2",
      "api",
      "issue",
      "repository",
    ]);
  });

  test("keeps short words and double-s endings, and letters of any script", () => {
    expect(tokenize("has access bus Übersicht")).toEqual(["has", "access", "bus", "übersicht"]);
  });
});

describe("createBm25Index", () => {
  const index = createBm25Index([
    { id: "a", text: "send a message to a channel" },
    { id: "b", text: "list channels in the workspace" },
    { id: "c", text: "create an issue in a repository" },
    { id: "d", text: "list issues in a repository with many other words that make this document long" },
  ]);

  test("returns only documents sharing a term, best first", () => {
    const hits = index.search("list channels", 10);
    // a and d match one word each, equally rare: the shorter document wins.
    expect(hits.map((h) => h.id)).toEqual(["b", "a", "d"]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  test("a rare term outweighs a common one", () => {
    expect(index.search("workspace repository", 1)[0]!.id).toBe("b");
  });

  test("a longer document scores lower for the same matches", () => {
    const ids = index.search("issue repository", 10).map((h) => h.id);
    expect(ids).toEqual(["c", "d"]);
  });

  test("filters before the cut and honours the limit", () => {
    expect(index.search("list channels", 1, (id) => id !== "b").map((h) => h.id)).toEqual(["a"]);
    expect(index.search("list channels", 0)).toEqual([]);
  });

  test("an empty index or an unmatched query finds nothing", () => {
    expect(createBm25Index([]).search("anything", 5)).toEqual([]);
    expect(index.search("calendar", 5)).toEqual([]);
    expect(index.search("  --  ", 5)).toEqual([]);
  });
});
