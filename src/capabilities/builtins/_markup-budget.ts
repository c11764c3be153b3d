/**
 * How much of a page can be read in bounded time. htmlparser2 (under linkedom) keeps its open elements in an array
 * that it unshifts on every start tag and searches on every stray end tag, so parsing costs tags × nesting depth;
 * turndown's blank-node checks then cost depth², and Readability and turndown recurse once per level. Real pages nest a
 * few dozen levels; 50,000 unclosed <div>s would block the daemon's only thread for seconds and overflow the stack, and
 * 5 MiB of them for minutes. One linear pass estimates that cost and says where to cut the page to stay within it.
 *
 * It is an estimate, not a parser: it skips comments, scripts and styles, and ignores void elements and those the next
 * sibling closes (p, li, td…). A page crafted to fool it can still cost more; running the render off the main thread
 * with a deadline would bound that, which the single-file build does not do yet.
 */

// 256 levels render in about a tenth of a second, 1,000 in about a second (measured).
const MAX_DEPTH = 256;
// About a quarter of a second of htmlparser2's stack work; a large real page (100,000 tags, 30 deep) needs 3,000,000.
const MAX_WORK = 50_000_000;

const NOT_NESTING = new Set([
  // void elements, as htmlparser2 lists them
  ..."area base basefont br col command embed frame hr image img input isindex keygen link meta param source track wbr".split(
    " ",
  ),
  // closed by their next sibling, so a page that never closes them stays flat
  ..."p li dt dd option optgroup tr td th thead tbody rt rp html head body".split(" "),
]);

const TAG = /<!--|<(\/?)([a-zA-Z][^\s/>]*)/g;
const RAW_TEXT_END = new Map([
  ["script", /<\/script/gi],
  ["style", /<\/style/gi],
]);

/** The length of the longest prefix of `html` that parses within budget: `html.length` for any ordinary page. */
export function parseableLength(html: string): number {
  const open = new Map<string, number>();
  let depth = 0;
  let work = 0;
  TAG.lastIndex = 0;
  for (let match = TAG.exec(html); match !== null; match = TAG.exec(html)) {
    const [whole, slash, rawName] = match;
    if (whole === "<!--") {
      const end = html.indexOf("-->", TAG.lastIndex);
      if (end === -1) break;
      TAG.lastIndex = end + 3;
      continue;
    }
    work += depth;
    if (work > MAX_WORK) return match.index;
    const name = rawName!.toLowerCase();
    if (slash === "/") {
      const count = open.get(name);
      if (count) {
        open.set(name, count - 1);
        depth--;
      }
      continue;
    }
    const rawEnd = RAW_TEXT_END.get(name);
    if (rawEnd !== undefined) {
      rawEnd.lastIndex = TAG.lastIndex;
      if (rawEnd.exec(html) === null) break;
      TAG.lastIndex = rawEnd.lastIndex;
      continue;
    }
    if (NOT_NESTING.has(name)) continue;
    open.set(name, (open.get(name) ?? 0) + 1);
    if (++depth > MAX_DEPTH) return match.index;
  }
  return html.length;
}
