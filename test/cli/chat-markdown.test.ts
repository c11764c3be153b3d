import { expect, test } from "bun:test";
import { createMarkdownStream, type Styles } from "../../src/cli/chat/markdown.ts";

// Visible tags instead of escape codes, so the expectations read as what a terminal shows.
const TAGS: Styles = { bold: (s) => `<b>${s}</b>`, dim: (s) => `<d>${s}</d>`, code: (s) => `<c>${s}</c>` };

function render(deltas: string[], styles: Styles | undefined): { out: string; writes: string[] } {
  const writes: string[] = [];
  const stream = createMarkdownStream(styles, (text) => writes.push(text));
  for (const delta of deltas) stream.push(delta);
  stream.end();
  return { out: writes.join(""), writes };
}

test("headings, bullets, quotes, rules and inline marks, rendered as lines complete", () => {
  const { out, writes } = render(["## Pla", "n\n- one **two** `x`\n  * nested\n> quoted\n---\nlast"], TAGS);
  expect(out).toBe(
    "<b>Plan</b>\n• one <b>two</b> <c>x</c>\n  • nested\n<d>│ quoted</d>\n<d>────────────────────────────────────────</d>\nlast",
  );
  // Nothing is written until a line is complete.
  expect(writes[0]).toStartWith("<b>Plan</b>\n");
});

test("a fenced block keeps its lines as written, under a label naming its language", () => {
  const { out } = render(["```python\n", "# not a heading\n    - not a bullet\n", "```\nafter"], TAGS);
  expect(out).toBe("<d>┌── python</d>\n<c># not a heading</c>\n<c>    - not a bullet</c>\n<d>└──</d>\nafter");
});

test("plain (NO_COLOR, not a terminal): the text exactly as streamed", () => {
  const text = "# Title\n- item\n```js\nx\n```";
  const { out, writes } = render(["# Ti", "tle\n- item\n```js\nx\n```"], undefined);
  expect(out).toBe(text);
  expect(writes).toEqual(["# Ti", "tle\n- item\n```js\nx\n```"]);
});
