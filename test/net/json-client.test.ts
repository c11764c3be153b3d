import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { FermixError } from "../../src/error.ts";
import { HttpRequestFailed, requestJson } from "../../src/net/json-client.ts";
import { OAuthTokenRejected, OAuthUnreachable, requestToken } from "../../src/plugins/oauth/_token-request.ts";
import { oauthProvider } from "../../src/plugins/oauth/providers.ts";
import { fetchManifest } from "../../src/upgrade/download.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();
const SECRET = "client-secret-0123456789abcdef";
const KEY = "sk-json-client-fedcba9876543210";

type Seen = { method: string; path: string; headers: Record<string, string>; body: string };

/** A loopback server that records each request and answers with `reply`. */
function fake(reply: (request: Request, seen: Seen[]) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      seen.push({
        method: request.method,
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      });
      return reply(request, seen);
    },
  });
  defer(() => server.stop(true));
  return { origin: `http://127.0.0.1:${server.port}`, seen };
}

async function failure(promise: Promise<unknown>): Promise<FermixError<any>> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FermixError);
  return err as FermixError<any>;
}

/** A body that streams `bytes` bytes in 16 KiB chunks with no Content-Length. */
function streamed(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      const n = Math.min(left, 16 * 1024);
      left -= n;
      controller.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
}

/** The client secret and the key, in any message, data or cause a caller could print. */
function expectNoSecrets(err: unknown) {
  const e = err as Error & { cause?: unknown };
  const text = `${e.message} ${JSON.stringify(e)} ${String(e.cause)} ${JSON.stringify(e.cause ?? null)}`;
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(KEY);
  expect(text).not.toContain("hunter2");
}

const github = (tokenUrl: string) => oauthProvider("github", { tokenUrl });
const client = { clientId: "fermix-test", clientSecret: SECRET };

describe("answers", () => {
  test("JSON comes back parsed with its status; headers and a JSON body go out as given", async () => {
    const api = fake(() => Response.json({ models: [{ name: "llama3.2:latest" }] }));
    const answer = await requestJson(`${api.origin}/api/show`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}` },
      body: { model: "llama3.2" },
      timeoutMs: 2000,
    });
    expect(answer).toEqual({
      status: 200,
      ok: true,
      body: { models: [{ name: "llama3.2:latest" }] },
      json: true,
      empty: false,
    });
    expect(api.seen).toHaveLength(1);
    expect(api.seen[0]).toMatchObject({ method: "POST", path: "/api/show", body: '{"model":"llama3.2"}' });
    expect(api.seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(api.seen[0]!.headers["content-type"]).toBe("application/json");
  });

  test("JSON is JSON whatever the content-type says", async () => {
    const api = fake(() => new Response('{"latest":"0.2.0"}', { headers: { "content-type": "text/plain" } }));
    expect((await requestJson(`${api.origin}/releases.json`, { timeoutMs: 2000 })).body).toEqual({ latest: "0.2.0" });
  });

  test("a 4xx with a JSON error body comes back as an answer, and the caller's sentence is unchanged", async () => {
    const api = fake(() =>
      Response.json(
        { error: "invalid_grant", error_description: "The code has expired or was already used." },
        { status: 400 },
      ),
    );
    const answer = await requestJson(`${api.origin}/token`, { method: "POST", body: "a=b", timeoutMs: 2000 });
    expect(answer).toMatchObject({ status: 400, ok: false, json: true, body: { error: "invalid_grant" } });

    const err = await failure(
      requestToken(github(`${api.origin}/token`), { grant_type: "authorization_code", code: "c" }, client, fetch),
    );
    expect(err.code).toBe(OAuthTokenRejected.code);
    expect(err.message).toBe(
      "github refused the token request (invalid_grant): The code has expired or was already used.",
    );
    expect(err.data).toEqual({ provider: "github", error: "invalid_grant", status: 400 });
    expectNoSecrets(err);
    // The secret did go out, in the form body, as RFC 6749 §2.3.1 allows.
    expect(new URLSearchParams(api.seen.at(-1)!.body).get("client_secret")).toBe(SECRET);
  });

  test("a body that is not JSON comes back unparsed, and the manifest's sentence is unchanged", async () => {
    const api = fake(() => new Response("<html>gateway</html>", { headers: { "content-type": "text/html" } }));
    const answer = await requestJson(`${api.origin}/releases.json`, { timeoutMs: 2000 });
    expect(answer).toEqual({ status: 200, ok: true, body: undefined, json: false, empty: false });

    const err = await failure(fetchManifest(`${api.origin}/releases.json`, fetch));
    expect(err.code).toBe("download_failed");
    expect(err.message).toBe(
      `${api.origin}/releases.json did not answer with JSON; is FERMIX_RELEASES_URL the address of releases.json?`,
    );
  });

  test("a 404 keeps the manifest's sentence and status", async () => {
    const api = fake(() => new Response("not found\n", { status: 404 }));
    const err = await failure(fetchManifest(`${api.origin}/releases.json`, fetch));
    expect(err.message).toBe(
      `the release manifest at ${api.origin}/releases.json answered HTTP 404 (not found: the release may have been withdrawn, or the URL is wrong)`,
    );
    expect(err.data).toEqual({ url: `${api.origin}/releases.json`, status: 404 });
  });
});

describe("failures", () => {
  test("no answer within the deadline is a timeout, with the platform's TimeoutError as the cause", async () => {
    const api = fake(() => new Promise<Response>(() => {}));
    const err = await failure(requestJson(`${api.origin}/v1/models`, { timeoutMs: 100 }));
    expect(err.code).toBe(HttpRequestFailed.code);
    expect(err.data).toEqual({ url: `${api.origin}/v1/models`, kind: "unreachable", timedOut: true });
    expect(err.message).toBe(`no answer from ${api.origin}/v1/models within 0.1 s`);
    expect((err.cause as Error).name).toBe("TimeoutError");
  });

  test("a body that stalls after the headers times out as a cut answer", async () => {
    const api = fake(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"models": ['));
            },
          }),
        ),
    );
    const err = await failure(requestJson(`${api.origin}/api/tags`, { timeoutMs: 150 }));
    expect(err.data).toMatchObject({ kind: "cut", timedOut: true });
  });

  test("nothing listening is unreachable; the message drops credentials and the query", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = server.port;
    await server.stop(true);
    const url = `http://user:hunter2@127.0.0.1:${port}/token?key=${KEY}`;
    const err = await failure(requestJson(url, { method: "POST", body: `client_secret=${SECRET}`, timeoutMs: 2000 }));
    expect(err.data).toEqual({ url: `http://127.0.0.1:${port}/token?…`, kind: "unreachable", timedOut: false });
    expect(err.message).toStartWith(`could not reach http://127.0.0.1:${port}/token?…: `);
    expectNoSecrets(err);
  });

  test("the token endpoint unreachable keeps its sentence and never shows the secret", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const tokenUrl = `http://127.0.0.1:${server.port}/token`;
    await server.stop(true);
    const err = await failure(requestToken(github(tokenUrl), { grant_type: "refresh_token" }, client, fetch));
    expect(err.code).toBe(OAuthUnreachable.code);
    expect(err.message).toStartWith(`could not reach github's token endpoint ${tokenUrl}: `);
    expectNoSecrets(err);
  });

  test("a 2xx body past maxBytes is refused, whether it declares its length or streams", async () => {
    const big = 64 * 1024;
    const api = fake((request) =>
      new URL(request.url).pathname === "/declared"
        ? new Response(new Uint8Array(big).fill(0x20))
        : new Response(streamed(big)),
    );
    for (const path of ["/declared", "/streamed"]) {
      const err = await failure(requestJson(`${api.origin}${path}`, { timeoutMs: 2000, maxBytes: 1024 }));
      expect(err.data).toEqual({ url: `${api.origin}${path}`, kind: "too_large", timedOut: false });
      expect(err.message).toBe(`the answer from ${api.origin}${path} is larger than 1024 bytes; refusing it`);
    }
    // Under the cap, the same body is fine.
    expect(await requestJson(`${api.origin}/streamed`, { timeoutMs: 2000, maxBytes: big })).toMatchObject({
      ok: true,
      json: false,
    });
  });

  test("an oversized manifest keeps its sentence", async () => {
    const api = fake(() => new Response(streamed(2 * 1024 * 1024)));
    const err = await failure(fetchManifest(`${api.origin}/releases.json`, fetch));
    expect(err.message).toBe(
      `the release manifest at ${api.origin}/releases.json is larger than 1048576 bytes; refusing it`,
    );
  });

  test("an error body past maxBytes is dropped and its status still decides", async () => {
    const api = fake(() => new Response(streamed(64 * 1024), { status: 404 }));
    const answer = await requestJson(`${api.origin}/releases.json`, { timeoutMs: 2000, maxBytes: 1024 });
    expect(answer).toMatchObject({ status: 404, ok: false, json: false, body: undefined });
  });
});

describe("retries", () => {
  const unavailable = () => fake(() => Response.json({ error: "overloaded" }, { status: 503 }));

  test("a POST that fails with 503 is sent once", async () => {
    const api = unavailable();
    const answer = await requestJson(`${api.origin}/token`, { method: "POST", body: "grant_type=x", timeoutMs: 2000 });
    expect(answer).toMatchObject({ status: 503, ok: false, body: { error: "overloaded" } });
    expect(api.seen).toHaveLength(1);
  });

  test("a token refresh that meets a 503 is sent once and says http_503", async () => {
    const api = fake(() => new Response("Service Unavailable", { status: 503 }));
    const err = await failure(
      requestToken(github(`${api.origin}/token`), { grant_type: "refresh_token", refresh_token: "r" }, client, fetch),
    );
    expect(err.data).toEqual({ provider: "github", error: "http_503", status: 503 });
    expect(api.seen.map((s) => s.method)).toEqual(["POST"]);
  });

  test("a GET is not retried unless the caller asks (ofetch would retry it once by default)", async () => {
    const api = unavailable();
    expect((await requestJson(`${api.origin}/v1/models`, { timeoutMs: 2000 })).status).toBe(503);
    expect(api.seen).toHaveLength(1);
  });

  test("a GET that asks is retried once on the listed statuses", async () => {
    const api = fake((_, seen) =>
      seen.length === 1 ? new Response("busy", { status: 503 }) : Response.json({ latest: "0.2.0" }),
    );
    const answer = await requestJson(`${api.origin}/releases.json`, {
      timeoutMs: 2000,
      retry: { statuses: [502, 503, 504] },
    });
    expect(answer).toMatchObject({ status: 200, body: { latest: "0.2.0" } });
    expect(api.seen).toHaveLength(2);
  });
});

describe("the door", () => {
  // Owner-configured endpoints only: what a model, a tool or a plugin chooses goes through guarded-fetch.
  test("no tool, plugin rail or channel imports the JSON client", () => {
    const src = join(import.meta.dir, "../../src");
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith(".ts") && readFileSync(path, "utf8").includes("json-client")) {
          offenders.push(relative(src, path));
        }
      }
    };
    for (const dir of ["capabilities", "agent", "plugins/http-rail", "plugins/mcp-rail"]) walk(join(src, dir));
    expect(offenders).toEqual([]);
  });
});
