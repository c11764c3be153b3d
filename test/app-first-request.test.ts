import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { askLocally } from "../src/gateway/local-ask.ts";
import { startFakeOpenAIResponses } from "./fake/llm.ts";
import { cleanupAfterEach } from "./fixture/cleanup.ts";
import { tempHome } from "./fixture/home.ts";

/*
 * A one-shot ask in a new conversation sends its model request before it opens memory.db (issue 31): the database
 * opens once the answer is in, and the turn is stored and its conversation noted as before.
 */

const defer = cleanupAfterEach();
const KEY = "sk-test-first-request-0123456789";

async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  llm.setDefault({ kind: "text", text: "pong" });
  const db = join(h.home, "memory.db");
  const dbAtFetch: boolean[] = [];
  const app = await createApp({
    env: { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl },
    fetch: ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      dbAtFetch.push(existsSync(db));
      return fetch(input, init);
    }) as typeof fetch,
  });
  defer(() => app.close());
  return { app, db, dbAtFetch };
}

describe("a one-shot ask's first model request", () => {
  test("goes out before memory.db is opened; the turn is stored and its conversation noted", async () => {
    const { app, db, dbAtFetch } = await setup();
    const done = await askLocally(app, { text: "ping", cwd: "/tmp" });
    expect(done.response).toBe("pong");
    expect(dbAtFetch).toEqual([false]);
    await app.idle();
    app.close();
    const stored = new Database(db, { readonly: true });
    defer(() => stored.close());
    const said = stored.query("SELECT COUNT(*) AS n FROM messages WHERE chat = ?").get(done.session_id) as {
      n: number;
    };
    expect(said.n).toBe(2);
    const noted = stored.query("SELECT trust FROM conversation_trust WHERE chat = ?").all(done.session_id);
    expect(noted).toEqual([{ trust: "operator" }]);
  });

  test("a continued conversation reads its history first, and the next turn sees the first", async () => {
    const { app, dbAtFetch } = await setup();
    const first = await askLocally(app, { text: "ping", cwd: "/tmp" });
    const second = await askLocally(app, { text: "again", cwd: "/tmp", session_id: first.session_id });
    expect(second.response).toBe("pong");
    expect(dbAtFetch).toEqual([false, true]);
  });
});
