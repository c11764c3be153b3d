import { expect, test } from "bun:test";
import { inlineText, parseMarkup } from "../../../src/capabilities/builtins/_html-text.ts";

const text = async (html: string) => inlineText(await parseMarkup(html));

test("the text of a fragment: entities decoded, markup, scripts and styles dropped, whitespace collapsed", async () => {
  expect(await text("Example <b>Domain</b>\n &amp;  <style>x{}</style>co")).toBe("Example Domain & co");
  expect(await text(`<script>if (a<b) x("</p>")</script><!-- <p>gone</p> -->1 < 2`)).toBe("1 < 2");
  expect(await text("one<br>two<br/>three")).toBe("one two three");
  expect(await text("&hellip;&mdash;&eacute; &#x2026; &#39;q&#x27; AT&T")).toBe("…—é … 'q' AT&T");
  expect(await text("plain words")).toBe("plain words");
  expect(await text("")).toBe("");
});

test("the text of an element in a page", async () => {
  const document = await parseMarkup(`<html><body><h2>Head</h2><p id="p">A <i>b</i>&nbsp;c</p></body></html>`);
  expect(inlineText(document.querySelector("#p"))).toBe("A b c");
});
