import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SESSION_COOKIE, SESSION_TTL_MS } from "../../src/web/gates.ts";
import { createPersistentSessionStore } from "../../src/web/session-store.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();

function storeFile(): string {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return join(h.home, "setup-sessions.json");
}

const cookie = (id: string) => `other=1; ${SESSION_COOKIE}=${id}`;

describe("sessions kept across a daemon restart", () => {
  test("a new store over the same file finds the session, with its form token; the file holds only hashes", () => {
    const file = storeFile();
    let now = 1_000;
    const first = createPersistentSessionStore({ now: () => now, file });
    const s = first.create("fp");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(s.id);
    expect(text).toContain(new Bun.CryptoHasher("sha256").update(s.id).digest("hex"));

    const second = createPersistentSessionStore({ now: () => now, file });
    expect(second.find(cookie(s.id), "fp")).toEqual(s);
    expect(second.find(cookie("guess"), "fp")).toBeUndefined();
    // A rotated setup token ends it, and that is written down too.
    expect(second.find(cookie(s.id), "rotated")).toBeUndefined();
    expect(createPersistentSessionStore({ now: () => now, file }).size()).toBe(0);

    const third = createPersistentSessionStore({ now: () => now, file });
    const t = third.create("fp");
    now += SESSION_TTL_MS;
    expect(createPersistentSessionStore({ now: () => now, file }).find(cookie(t.id), "fp")).toBeUndefined();
  });

  test("logout deletes it for the next daemon too; a malformed file is no sessions, never a throw", () => {
    const file = storeFile();
    const store = createPersistentSessionStore({ now: () => 0, file });
    const s = store.create("fp");
    store.delete(s.id);
    expect(createPersistentSessionStore({ now: () => 0, file }).find(cookie(s.id), "fp")).toBeUndefined();
    writeFileSync(file, '[{"id_sha256": 42}]');
    expect(createPersistentSessionStore({ now: () => 0, file }).size()).toBe(0);
    writeFileSync(file, "not json");
    expect(createPersistentSessionStore({ now: () => 0, file }).size()).toBe(0);
  });
});
