import { describe, expect, test } from "bun:test";
import { handleSlash } from "../../src/gateway/slash.ts";
import { fakeSlashContext, LOCAL_OWNER } from "../fixture/slash-context.ts";

describe("/sandbox and its family", () => {
  test("/sandbox shows the mode and the roots", async () => {
    const { ctx, state } = fakeSlashContext();
    state.roots.push("/home/u/data");
    expect(await handleSlash("/sandbox", ctx)).toBe(
      [
        "sandbox: standard mode",
        "protection: path checks only (install bubblewrap for process isolation of shell commands)",
        "workspace: /home/u/fermix-workspace",
        "granted roots: /home/u/data",
        "/grant PATH adds a directory; /revoke PATH takes one back.",
      ].join("\n"),
    );
  });

  test("/grant and /revoke edit the roots; ~ is the home; a repeat grant says so", async () => {
    const { ctx, state } = fakeSlashContext();
    expect(await handleSlash("/grant ~/data", ctx)).toBe(
      "Granted /home/u/data: added to [sandbox] allowed_roots, in effect from the next turn.",
    );
    expect(await handleSlash("/sandbox grant /home/u/data/", ctx)).toBe("/home/u/data was already granted.");
    expect(state.roots).toEqual(["/home/u/data"]);
    expect(await handleSlash("/revoke /home/u/data", ctx)).toBe(
      "Revoked /home/u/data: removed from [sandbox] allowed_roots, in effect from the next turn.",
    );
    expect(state.roots).toEqual([]);
  });

  test("a refusal from the sandbox is the reply", async () => {
    const { ctx } = fakeSlashContext();
    expect(await handleSlash("/grant ~/.ssh", ctx)).toBe("~/.ssh is protected and can never be granted.");
    expect(await handleSlash("/revoke /nowhere", ctx)).toBe("/nowhere is not a granted root (granted: none).");
  });

  test("a relative path means the CLI's directory; a chat has none", async () => {
    const { ctx, state } = fakeSlashContext();
    expect(await handleSlash("/grant data", ctx)).toBe(
      'Give an absolute path (or ~/…): "data" is relative, and a chat has no directory.',
    );
    await handleSlash("/grant data", { ...ctx, caller: LOCAL_OWNER, surface: "cli" });
    expect(state.roots).toEqual(["/work/here/data"]);
    expect(await handleSlash("/grant", ctx)).toBe("Usage: /grant PATH or /revoke PATH (a directory).");
    expect(await handleSlash("/sandbox widen everything", ctx)).toStartWith("Usage: /sandbox, or /sandbox grant PATH");
  });

  test("/confirm grants a pending request; /deny refuses one; both only in the conversation that asked", async () => {
    const { ctx, state } = fakeSlashContext();
    const first = ctx.approvals.request({ path: "/home/u/a", reason: "r", conversation: ctx.conversation });
    const second = ctx.approvals.request({ path: "/home/u/b", reason: "r", conversation: ctx.conversation });
    const elsewhere = { ...ctx, conversation: { channel: "telegram", chat: "999" } };
    expect(await handleSlash(`/deny ${second.token}`, elsewhere)).toBe(
      "Not denied: that token belongs to another conversation.",
    );
    expect(await handleSlash(`/sandbox deny ${second.token.toLowerCase()}`, ctx)).toBe(
      "Denied: no access to /home/u/b. The request is closed.",
    );
    expect(await handleSlash(`/confirm ${second.token}`, ctx)).toBe("Not confirmed: that token was already used.");
    expect(await handleSlash(`/confirm ${first.token}`, ctx)).toBe(
      "Granted access to /home/u/a (added to [sandbox] allowed_roots). Run your request again.",
    );
    expect(state.roots).toEqual(["/home/u/a"]);
    expect(await handleSlash("/deny", ctx)).toBe("Usage: /deny TOKEN (the token from the access request).");
  });
});
