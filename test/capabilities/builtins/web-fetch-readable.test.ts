import { describe, expect, test } from "bun:test";
import { webFetchTool } from "../../../src/capabilities/builtins/web-fetch.ts";
import { createLoopbackDoor, useFakeServers } from "../../net/loopback-door.ts";

const SITE = "93.184.216.34";
const ARTICLE_URL = "https://news.example.com/2026/03/how-tide-tables-are-made";
const article = await Bun.file(new URL("../../fixture/pages/article.html", import.meta.url)).text();

const SIGN_IN = `<!DOCTYPE html>
<html lang="en"><head><title>Sign in | The Harbour Gazette</title></head>
<body>
  <header class="site-header"><nav><a href="/">Home</a> <a href="/news">Latest news</a></nav></header>
  <main>
    <h1>Sign in to your account</h1>
    <p>Subscribers can read every story &amp; the archive.</p>
    <form action="/login" method="post">
      <div class="field"><label for="email">Email address</label> <input id="email" type="email" name="email"></div>
      <div class="field"><label for="password">Password</label> <input id="password" type="password" name="password"></div>
      <button type="submit">Sign in</button>
    </form>
    <p><a href="/account/reset">Forgot your password?</a></p>
  </main>
  <footer><p>&copy; 2026 Harbour Gazette Media Ltd.</p></footer>
</body></html>`;

const serve = useFakeServers();

function context() {
  const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
  const { origin } = serve((request) => {
    const { pathname } = new URL(request.url);
    if (pathname === new URL(ARTICLE_URL).pathname) return html(article);
    if (pathname === "/login") return html(SIGN_IN);
    if (pathname === "/nested")
      return html(`<p>Start of a page built by a broken generator.</p>${"<div>".repeat(50_000)}`);
    return new Response("not found", { status: 404 });
  });
  const door = createLoopbackDoor({ names: { "news.example.com": [SITE] }, routes: { [SITE]: origin } });
  return { net: door.net, signal: new AbortController().signal, log: { warn: () => {} } };
}

// Text from every part of the page that is not the article: navigation, cookie banner, sidebars, ads, share tools,
// comments, newsletter box, footer, and what the scripts would write.
const CHROME = [
  "Latest news",
  "World affairs",
  "Business & markets",
  "Subscribe from",
  "Search the Gazette",
  "We use cookies",
  "cookie policy",
  "Accept all cookies",
  "Manage my preferences",
  "Related posts",
  "Dredging of the outer harbour",
  "lighthouse keepers",
  "Sponsored content",
  "Luxury yacht",
  "Advertisement",
  "Harbourside apartments",
  "Waterproof dive watches",
  "Share this story",
  "Share on Chirper",
  "Email a friend",
  "Comments (3)",
  "SeaDog42",
  "Brilliant piece",
  "Would love a follow-up",
  "seems like overkill",
  "Join the discussion",
  "Post your comment",
  "Most read",
  "Seal pup rescued",
  "Morning Tide briefing",
  "Sign me up",
  "About the Gazette",
  "Contact the newsroom",
  "Privacy notice",
  "Harbour Gazette Media Ltd",
  "tracking pixel",
  "pageview",
];

describe("web_fetch reads a realistic article page", () => {
  test("the article's text as Markdown, without the chrome around it", async () => {
    const result = await webFetchTool.execute({ url: ARTICLE_URL }, context());
    expect(result.isError).toBeUndefined();
    const { content } = result;

    expect(content).toStartWith(
      [
        "Title: How the tide tables are made",
        `URL: ${ARTICLE_URL}`,
        "Byline: By Maren Holt, science correspondent · 14 March 2026",
        "Published: 2026-03-14T08:30:00Z",
        "",
        "Every tide table you have ever squinted at on a harbour wall began as a long record of water levels. The Harbour Office’s gauge has logged",
      ].join("\n"),
    );
    expect(content).toContain("the little booklet fishermen & sailors keep in their pockets.");
    expect(content).toContain("the sum of dozens of smaller ones — each with its own period");
    expect(content).toContain("“Once you know the ingredients,” she says,");
    expect(content).toContain(
      "a method called [harmonic analysis](https://news.example.com/science/harmonic-analysis?ref=story&section=tides), which fits",
    );
    expect(content).toContain(
      [
        "## From harmonics to a printed table",
        "",
        "The observatory uses thirty-seven constituents for this harbour. Four of them do most of the work:",
        "",
        "- M2, the principal lunar constituent, with a period of 12.42 hours",
        "- S2, the principal solar constituent, every 12 hours exactly",
        "- K1 and O1, the daily constituents that make one high tide taller than the other",
      ].join("\n"),
    );
    expect(content).toContain(
      [
        "```python",
        "def height(t, constituents):",
        "    total = 0.0",
        "    for c in constituents:",
        "        if c.amplitude > 0 and c.speed < 60:",
        "            total += c.amplitude * cos(c.speed * t - c.phase)",
        "    return total",
        "```",
      ].join("\n"),
    );
    expect(content).toEndWith("accurate to within a few centimetres — “unless the weather has other ideas.”");

    for (const chrome of CHROME) expect(content).not.toContain(chrome);
    expect(content).not.toMatch(/&[a-z]+;|&#\d+;/);
  });

  test("a page without an article comes back as its visible text", async () => {
    const result = await webFetchTool.execute({ url: "https://news.example.com/login" }, context());
    expect(result).toEqual({
      content: [
        "Title: Sign in | The Harbour Gazette",
        "URL: https://news.example.com/login",
        "",
        "# Sign in to your account",
        "",
        "Subscribers can read every story & the archive.",
        "",
        "Email address",
        "",
        "Password",
        "",
        "Sign in",
        "",
        "[Forgot your password?](https://news.example.com/account/reset)",
      ].join("\n"),
    });
  });

  test("max_chars still caps the rendered page, and says so", async () => {
    const ctx = context();
    const whole = (await webFetchTool.execute({ url: ARTICLE_URL, max_chars: 100_000 }, ctx)).content;
    const capped = await webFetchTool.execute({ url: ARTICLE_URL, max_chars: 500 }, ctx);
    expect(capped.isError).toBeUndefined();
    expect(capped.content).toBe(
      `${whole.slice(0, 500)}\n\n[Truncated: showing the first 500 of ${whole.length} characters. Call web_fetch again with a larger max_chars (up to 100000) to see more.]`,
    );
  });

  test("markup nested too deeply to parse in bounded time is read in part, with a note", async () => {
    const result = await webFetchTool.execute({ url: "https://news.example.com/nested" }, context());
    expect(result.content).toBe(
      [
        "URL: https://news.example.com/nested",
        "",
        "Start of a page built by a broken generator.",
        "",
        "[The page's markup nests too deeply to read whole; only its first part was read.]",
      ].join("\n"),
    );
  });
});
