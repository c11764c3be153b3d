import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { webFetchTool } from "../../../src/capabilities/builtins/web-fetch.ts";
import type { Limits } from "../../../src/net/guarded-fetch.ts";
import { createLoopbackDoor, useFakeServers } from "../../net/loopback-door.ts";

const SITE = "93.184.216.34";
const names = { "news.example.com": [SITE], "sneaky.example.com": [SITE], "intranet.example.com": ["10.20.30.40"] };

const ARTICLE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Tides &amp; Moons — Example News</title>
  <style>.x { color: red }</style>
  <script>window.track = function () { return "<p>tracking</p>"; };</script>
</head>
<body>
  <header class="site"><a href="/">Example News</a> <nav><a href="/world">World</a> <a href="/tech">Tech</a></nav></header>
  <main>
    <article>
      <h1>Why the tides turn</h1>
      <p class="byline">By A. Writer &middot; 3&nbsp;min read</p>
      <p>The Moon&#8217;s pull raises two bulges of water.
         Read <a href="/science/gravity?ref=a&amp;b=1">more on gravity</a> or the
         <a href="https://en.wikipedia.org/wiki/Tide">Wikipedia article</a>.</p>
      <h2>Spring and neap tides</h2>
      <ul>
        <li>Spring tides: Sun and Moon aligned</li>
        <li>Neap tides: at right angles</li>
      </ul>
      <noscript><p>Please enable JavaScript.</p></noscript>
      <svg viewBox="0 0 10 10"><title>wave icon</title><path d="M0 0L10 10"/></svg>
    </article>
    <aside><h3>Trending</h3><p>Ten cats that look like loaves</p></aside>
  </main>
  <footer><p>&copy; 2026 Example News</p></footer>
  <script src="/app.js"></script>
</body>
</html>`;

const serve = useFakeServers();

function site(routes: Record<string, () => Response | Promise<Response>>) {
  const hosts: string[] = [];
  const fake = serve((request) => {
    const url = new URL(request.url);
    hosts.push(request.headers.get("host") ?? "");
    const route = routes[url.pathname];
    return route
      ? route()
      : new Response("<html><body><h1>Not Found</h1><p>No such page.</p></body></html>", {
          status: 404,
          headers: { "content-type": "text/html" },
        });
  });
  return { ...fake, hosts };
}

function context(origin: string, defaults?: Partial<Limits>, signal = new AbortController().signal) {
  const door = createLoopbackDoor({ names, routes: { [SITE]: origin }, defaults });
  return { net: door.net, signal, log: { warn: () => {} } };
}

const typed = (type: string, body: string | Uint8Array) => () =>
  new Response(body, { headers: { "content-type": type } });

describe("web_fetch reads", () => {
  test("HTML as readable text: title first, headings, lists, links, no chrome or scripts", async () => {
    const fake = site({ "/article": typed("text/html; charset=utf-8", ARTICLE) });
    const result = await webFetchTool.execute({ url: "https://news.example.com/article" }, context(fake.origin));

    expect(result.isError).toBeUndefined();
    expect(result.content).toBe(
      [
        "Title: Tides & Moons — Example News",
        "URL: https://news.example.com/article",
        "",
        "# Why the tides turn",
        "",
        "By A. Writer · 3 min read",
        "",
        "The Moon’s pull raises two bulges of water. Read [more on gravity](https://news.example.com/science/gravity?ref=a&b=1) or the [Wikipedia article](https://en.wikipedia.org/wiki/Tide).",
        "",
        "## Spring and neap tides",
        "",
        "- Spring tides: Sun and Moon aligned",
        "- Neap tides: at right angles",
      ].join("\n"),
    );
    expect(fake.hosts).toEqual(["news.example.com"]);
  });

  test("JSON verbatim, including +json types", async () => {
    const data = '{"items":[{"id":1,"name":"a & b"}],"next":null}';
    const fake = site({
      "/api": typed("application/json", data),
      "/ld": typed("application/ld+json; charset=utf-8", data),
    });
    const ctx = context(fake.origin);
    expect((await webFetchTool.execute({ url: "https://news.example.com/api" }, ctx)).content).toBe(data);
    expect((await webFetchTool.execute({ url: "https://news.example.com/ld" }, ctx)).content).toBe(data);
  });

  test("plain text as is, in its declared charset", async () => {
    const fake = site({
      "/notes.txt": typed("text/plain", "line one\n  line <two> &amp;\n"),
      "/latin1": typed("text/plain; charset=iso-8859-1", new Uint8Array([0x63, 0x61, 0x66, 0xe9])),
      "/meta": typed(
        "text/html",
        new Uint8Array([...new TextEncoder().encode('<meta charset="windows-1252"><p>'), 0x93, 0x68, 0x69, 0x94]),
      ),
    });
    const ctx = context(fake.origin);
    expect((await webFetchTool.execute({ url: "http://news.example.com/notes.txt" }, ctx)).content).toBe(
      "line one\n  line <two> &amp;\n",
    );
    expect((await webFetchTool.execute({ url: "http://news.example.com/latin1" }, ctx)).content).toBe("café");
    expect((await webFetchTool.execute({ url: "http://news.example.com/meta" }, ctx)).content).toContain("“hi”");
  });

  test("other types as a short note with type and size", async () => {
    const png = new Uint8Array(2048).fill(7);
    const fake = site({ "/logo.png": typed("image/png", png) });
    const result = await webFetchTool.execute({ url: "https://news.example.com/logo.png" }, context(fake.origin));
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe(
      "https://news.example.com/logo.png is image/png (2.0 KiB). web_fetch shows only HTML, JSON and text.",
    );
  });

  test("output is capped at max_chars and says so", async () => {
    const long = "word ".repeat(10_000);
    const fake = site({ "/long.txt": typed("text/plain", long) });
    const ctx = context(fake.origin);
    const capped = await webFetchTool.execute({ url: "https://news.example.com/long.txt", max_chars: 500 }, ctx);
    expect(capped.content).toStartWith(long.slice(0, 500));
    expect(capped.content).toContain(
      "[Truncated: showing the first 500 of 50000 characters. Call web_fetch again with a larger max_chars",
    );
    const byDefault = await webFetchTool.execute({ url: "https://news.example.com/long.txt" }, ctx);
    expect(byDefault.content).toContain("showing the first 20000 of 50000");
  });

  test("a body over the byte cap is marked", async () => {
    const fake = site({ "/big.txt": typed("text/plain", "x".repeat(5000)) });
    const result = await webFetchTool.execute(
      { url: "https://news.example.com/big.txt" },
      context(fake.origin, { maxBytes: 1024 }),
    );
    expect(result.content).toContain("[The response was larger than 1.0 KiB; only that much was read.]");
  });
});

describe("web_fetch failures come back as tool errors", () => {
  test("HTTP errors carry the status, advice and what the server said", async () => {
    const fake = site({ "/down": () => new Response("maintenance window", { status: 503 }) });
    const ctx = context(fake.origin);
    const missing = await webFetchTool.execute({ url: "https://news.example.com/nope" }, ctx);
    expect(missing).toEqual({
      isError: true,
      content:
        "HTTP 404 from https://news.example.com/nope. The page does not exist. Check the URL, or find the right one with web_search.\nThe server said: # Not Found No such page.",
    });
    const down = await webFetchTool.execute({ url: "https://news.example.com/down" }, ctx);
    expect(down.isError).toBe(true);
    expect(down.content).toStartWith("HTTP 503 from https://news.example.com/down. The server failed; try again later");
  });

  test("private targets, directly, by DNS and after a redirect", async () => {
    const fake = site({
      "/go": () =>
        new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } }),
    });
    const ctx = context(fake.origin);
    for (const [url, why] of [
      ["http://localhost:8080/admin", /localhost is a localhost name/],
      ["http://[::ffff:127.0.0.1]/", /IPv4-mapped address for 127\.0\.0\.1/],
      ["http://intranet.example.com/", /resolves to 10\.20\.30\.40, which is a private address/],
      ["https://sneaky.example.com/go", /refused redirect from https:\/\/sneaky\.example\.com\/go: .*link-local/],
      ["file:///etc/passwd", /only http and https/],
    ] as const) {
      const result = await webFetchTool.execute({ url }, ctx);
      expect(result.isError).toBe(true);
      expect(result.content).toStartWith("Blocked: refused");
      expect(result.content).toMatch(why);
      expect(result.content).toContain("only reaches public internet addresses");
    }
  });

  test("a redirect loop, an unknown host, a timeout and a cancel", async () => {
    const fake = site({
      "/loop": () => new Response(null, { status: 301, headers: { location: "/loop" } }),
      "/slow": () => new Promise<Response>(() => {}),
    });
    const ctx = context(fake.origin, { timeoutMs: 100 });
    const loop = await webFetchTool.execute({ url: "https://news.example.com/loop" }, ctx);
    expect(loop.content).toMatch(/^Blocked: .*stopped after 5 redirects.*redirects in a loop/);
    const unknown = await webFetchTool.execute({ url: "https://no-such-host.example.com/" }, ctx);
    expect(unknown.content).toMatch(/^Not found: could not resolve no-such-host\.example\.com/);
    const slow = await webFetchTool.execute({ url: "https://news.example.com/slow" }, ctx);
    expect(slow).toEqual({
      isError: true,
      content:
        "Timed out: timed out after 100 ms fetching https://news.example.com/slow. The site may be slow or down; try again later or use another source.",
    });
    const cancelled = await webFetchTool.execute(
      { url: "https://news.example.com/slow" },
      context(fake.origin, {}, AbortSignal.abort()),
    );
    expect(cancelled).toEqual({ isError: true, content: "The fetch of https://news.example.com/slow was cancelled." });
  });
});

test("arguments are validated at the edge", () => {
  expect(v.safeParse(webFetchTool.parameters, { url: "not a url" }).success).toBe(false);
  expect(v.safeParse(webFetchTool.parameters, { url: "https://example.com/", max_chars: 100_001 }).success).toBe(false);
  expect(v.safeParse(webFetchTool.parameters, { url: "https://example.com/", max_chars: 100_000 }).success).toBe(true);
});
