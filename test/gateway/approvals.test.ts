import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { APPROVAL_TTL_MS, createApprovals } from "../../src/gateway/approvals.ts";
import { handleSlash } from "../../src/gateway/slash.ts";
import { migrate } from "../../src/memory/db.ts";
import { fakeSlashContext, GUEST, LOCAL_OWNER } from "../fixture/slash-context.ts";

const here = { channel: "cli", chat: "s1" };

function setup() {
  const db = new Database(":memory:");
  migrate(db);
  let now = 1_000_000;
  const approvals = createApprovals(
    () => db,
    () => now,
  );
  return { db, approvals, advance: (ms: number) => (now += ms) };
}

describe("directory approvals", () => {
  test("a token confirms once, in its own conversation, before it expires", () => {
    const { approvals } = setup();
    const { token, expiresAt } = approvals.request({ path: "/home/u/data", reason: "csv", conversation: here });
    expect(token).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
    expect(expiresAt).toBe(1_000_000 + APPROVAL_TTL_MS);
    expect(approvals.confirm(token, { channel: "cli", chat: "other" })).toEqual({
      ok: false,
      reason: "that token belongs to another conversation",
    });
    expect(approvals.confirm(token.toLowerCase(), here)).toEqual({ ok: true, path: "/home/u/data" });
    expect(approvals.confirm(token, here)).toEqual({ ok: false, reason: "that token was already used" });
    expect(approvals.confirm("NOPE2345", here)).toEqual({ ok: false, reason: "no pending request has that token" });
  });

  test("a token older than 60 s is refused", () => {
    const { approvals, advance } = setup();
    const { token } = approvals.request({ path: "/home/u/data", reason: "csv", conversation: here });
    advance(APPROVAL_TTL_MS + 1);
    expect(approvals.confirm(token, here)).toEqual({ ok: false, reason: "that token has expired; ask again" });
  });

  test("/deny uses the request up without a grant, in its own conversation only", () => {
    const { approvals } = setup();
    const { token } = approvals.request({ path: "/home/u/data", reason: "csv", conversation: here });
    expect(approvals.deny(token, { channel: "cli", chat: "other" })).toEqual({
      ok: false,
      reason: "that token belongs to another conversation",
    });
    expect(approvals.deny(token, here)).toEqual({ ok: true, path: "/home/u/data" });
    expect(approvals.confirm(token, here)).toEqual({ ok: false, reason: "that token was already used" });
  });

  test("only the owner can /confirm, and the token is kept only as a hash", async () => {
    const { ctx, db, state } = fakeSlashContext({ conversation: here });
    const { token } = ctx.approvals.request({ path: "/home/u/data", reason: "csv", conversation: here });
    const guest = await handleSlash(`/confirm ${token}`, { ...ctx, caller: GUEST, commandAllowlist: ["confirm"] });
    expect(guest).toBe("This command requires owner permissions.");
    expect(state.roots).toEqual([]);
    expect(JSON.stringify(db.query("SELECT * FROM approvals").all())).not.toContain(token);
    const owner = await handleSlash(`/confirm ${token}`, { ...ctx, caller: LOCAL_OWNER });
    expect(owner).toContain("Granted access to /home/u/data");
    expect(state.roots).toEqual(["/home/u/data"]);
    expect(await handleSlash("/unknown thing", { ...ctx, caller: LOCAL_OWNER })).toBeUndefined();
  });
});
