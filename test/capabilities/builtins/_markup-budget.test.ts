import { expect, test } from "bun:test";
import { parseableLength } from "../../../src/capabilities/builtins/_markup-budget.ts";

const article = await Bun.file(new URL("../../fixture/pages/article.html", import.meta.url)).text();

test("an ordinary page, however long, is read whole", () => {
  expect(parseableLength(article)).toBe(article.length);
  const long = `<html><body>${`<div class="row"><div><p>text<li>item<br><img src=x><span>s</span></div></div>`.repeat(40_000)}</body></html>`;
  expect(parseableLength(long)).toBe(long.length);
});

test("nesting past the limit is cut where it passes it", () => {
  const html = `<p>intro</p>${"<div>".repeat(10_000)}`;
  const cut = parseableLength(html);
  expect(html.slice(0, cut)).toBe(`<p>intro</p>${"<div>".repeat(256)}`);
});

test("end tags that close nothing do not make a page shallower, and cost what htmlparser2 pays for them", () => {
  expect(parseableLength(`${"<div></x>".repeat(1_000)}`)).toBeLessThan(1_000 * 9);
  const stray = `${"<b>".repeat(200)}${"</span>".repeat(500_000)}`;
  expect(parseableLength(stray)).toBeLessThan(stray.length);
});

test("markup inside comments, scripts and styles does not count", () => {
  const html = `<!-- ${"<div>".repeat(1_000)} --><script>var s = "${"<div>".repeat(1_000)}";</script><STYLE>${"<div>".repeat(1_000)}</style><p>end</p>`;
  expect(parseableLength(html)).toBe(html.length);
});
