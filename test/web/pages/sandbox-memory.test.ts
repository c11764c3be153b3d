import { describe, expect, test } from "bun:test";
import type { ReviewReport } from "../../../src/memory/review-contract.ts";
import type { MemoryWeb } from "../../../src/web/memory-deps.ts";
import type { WebDeps } from "../../../src/web/page.ts";
import { memoryPage } from "../../../src/web/pages/memory.ts";
import { sandboxPage } from "../../../src/web/pages/sandbox.ts";
import { ctx, form } from "./_cards-fixture.ts";

describe("Sandbox page", () => {
  test("read-only: mode, roots and the CLI commands; no form", async () => {
    const deps = {
      sandbox: {
        status: async () => ({
          mode: "standard" as const,
          isolation: "bubblewrap" as const,
          workspaceRoot: "/home/me/.fermix/workspace",
          allowedRoots: ["/home/me/src"],
          blockedRoots: ["/home/me/src/secret"],
          protectedPaths: ["/home/me/.ssh"],
        }),
      },
    } as unknown as WebDeps;
    const out = (await sandboxPage.render(deps, ctx())).html;
    expect(out).toContain("<strong>standard</strong>");
    expect(out).toContain("<code>/home/me/src</code>");
    expect(out).toContain("<code>/home/me/src/secret</code>");
    expect(out).toContain("fermix sandbox mode strict|standard|open");
    expect(out).toContain("fermix grant path PATH");
    expect(out).toContain("fermix revoke path PATH");
    expect(out).not.toContain("<form");
    expect(sandboxPage.submit).toBeUndefined();
  });
});

describe("Memory page", () => {
  function fake(report: ReviewReport) {
    const restored: number[] = [];
    const memory: MemoryWeb = {
      revisions: async () => [
        { id: 2, name: "USER.md", revision: 2, reason: "memory review", createdAt: 0, bytes: 10, current: true },
        { id: 1, name: "USER.md", revision: 1, reason: "seeded", createdAt: 0, bytes: 5, current: false },
      ],
      reviewNow: async () => report,
      restore: async (id) => {
        restored.push(id);
        return { name: "USER.md", revision: 3, id: 3 };
      },
    };
    return { deps: { memory } as unknown as WebDeps, restored };
  }

  test("revisions listed, Restore on the non-current ones, Review now", async () => {
    const { deps } = fake({ status: "skipped", reason: "x" });
    const out = (await memoryPage.render(deps, ctx())).html;
    expect(out).toContain("<td>rev_2</td>");
    expect(out).toContain("<strong>current</strong>");
    expect(out.match(/value="restore"/g)?.length).toBe(1);
    expect(out).toContain('name="id" value="1"');
    expect(out).toContain('value="review"><button>Review now</button>');
  });

  test("review now: a failure (no provider) is the error; a report is the notice; restore checks the id", async () => {
    const failing = fake({ status: "failed", error: "no provider is configured; run fermix setup", nextAt: 0 });
    expect(await memoryPage.submit!(form({ action: "review" }), failing.deps)).toEqual({
      ok: false,
      error: "memory review: no provider is configured; run fermix setup",
    });
    const done = fake({
      status: "done",
      facts: 4,
      replaced: ["city"],
      retired: [],
      files: [{ name: "USER.md", revisionId: 9, revision: 3 }],
    });
    expect(await memoryPage.submit!(form({ action: "review" }), done.deps)).toEqual({
      ok: true,
      notice: "memory review: 4 facts reviewed; 1 replaced, 0 retired; wrote USER.md (rev_9)",
    });
    expect(await memoryPage.submit!(form({ action: "restore", id: "1; drop" }), done.deps)).toMatchObject({
      ok: false,
      error: expect.stringContaining("id:"),
    });
    expect(await memoryPage.submit!(form({ action: "restore", id: "1" }), done.deps)).toEqual({
      ok: true,
      notice: "restored USER.md (now revision 3, rev_3)",
    });
    expect(done.restored).toEqual([1]);
  });
});
