/**
 * A page as the model reads it: one line per meaningful element (headings, text, links, form fields, buttons,
 * images), indented by nesting, each element that can be acted on tagged with a ref ("e7") that `act` takes.
 * The refs are written onto the page's elements (data-fermix-ref), so they stay valid until the next snapshot
 * or navigation. Playwright's own AI snapshot is an internal API; this is ours, small and stable.
 */
// The page's globals, for the functions that run inside it: the project compiles without the DOM library (it is a
// server program), so they are declared here, module-local, as what they are to us: opaque.
declare const document: any;
declare const getComputedStyle: (el: any) => { display: string; visibility: string };
declare const Node: { TEXT_NODE: number };
type Element = any;
type HTMLElement = any;
type HTMLInputElement = any;
type HTMLTextAreaElement = any;
type HTMLSelectElement = any;

export type SnapshotOptions = { depth: number; maxChildren: number; maxChars: number; interactiveOnly: boolean };
export type Snapshot = { text: string; refs: number; truncated: boolean };

export const SNAPSHOT_DEFAULTS: SnapshotOptions = {
  depth: 5,
  maxChildren: 200,
  maxChars: 50_000,
  interactiveOnly: false,
};

/** The selector `act` uses for a ref from the latest snapshot. */
export function refSelector(ref: string): string {
  return `[data-fermix-ref="${ref.replace(/[^a-z0-9]/gi, "")}"]`;
}

/**
 * Runs inside the page (serialised by the CDP client): it must not reference anything outside its own body.
 * Depth counts only the lines shown, so wrapper divs cost nothing.
 */
export function snapshotInPage(opts: SnapshotOptions): Snapshot {
  const lines: string[] = [];
  let chars = 0;
  let refs = 0;
  let truncated = false;
  for (const old of Array.from<Element>(document.querySelectorAll("[data-fermix-ref]")))
    old.removeAttribute("data-fermix-ref");

  const visible = (el: Element): boolean => {
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden") return false;
    if ((el as HTMLElement).hidden || el.getAttribute("aria-hidden") === "true") return false;
    return true;
  };
  const clean = (text: string | null | undefined, max = 200): string => {
    const t = (text ?? "").replace(/\s+/g, " ").trim();
    return t.length > max ? `${t.slice(0, max)}…` : t;
  };
  const labelOf = (el: Element): string => {
    const aria = el.getAttribute("aria-label");
    if (aria) return clean(aria);
    const labelled = el.getAttribute("aria-labelledby");
    if (labelled) return clean(document.getElementById(labelled)?.textContent);
    const labels = (el as HTMLInputElement).labels;
    if (labels?.length) return clean(labels[0]?.textContent);
    return clean(el.getAttribute("placeholder") || el.getAttribute("title") || el.getAttribute("name"));
  };
  const describe = (el: Element): { line: string; act: boolean } | undefined => {
    const tag = el.tagName.toLowerCase();
    const role = el.getAttribute("role");
    if (/^h[1-6]$/.test(tag)) return { line: `heading (level ${tag[1]}) "${clean(el.textContent)}"`, act: false };
    if (tag === "a" && el.hasAttribute("href")) {
      return {
        line: `link "${clean(el.textContent) || labelOf(el)}" -> ${clean(el.getAttribute("href"), 300)}`,
        act: true,
      };
    }
    if (tag === "button" || role === "button")
      return { line: `button "${clean(el.textContent) || labelOf(el)}"`, act: true };
    if (tag === "input") {
      const input = el as HTMLInputElement;
      const type = (input.type || "text").toLowerCase();
      if (type === "hidden") return undefined;
      if (type === "submit" || type === "button" || type === "reset")
        return { line: `button "${clean(input.value) || labelOf(el)}"`, act: true };
      if (type === "checkbox" || type === "radio") {
        return { line: `${type} "${labelOf(el)}"${input.checked ? " (checked)" : ""}`, act: true };
      }
      const value = type === "password" ? (input.value ? "••••" : "") : clean(input.value, 100);
      return {
        line: `textbox "${labelOf(el)}"${type !== "text" ? ` (${type})` : ""}${value ? ` value="${value}"` : ""}`,
        act: true,
      };
    }
    if (tag === "textarea") {
      return {
        line: `textbox "${labelOf(el)}" (multi-line)${(el as HTMLTextAreaElement).value ? ` value="${clean((el as HTMLTextAreaElement).value, 100)}"` : ""}`,
        act: true,
      };
    }
    if (tag === "select") {
      const select = el as HTMLSelectElement;
      const chosen = select.selectedOptions[0]?.textContent;
      const options = Array.from(select.options)
        .slice(0, 20)
        .map((o: any) => clean(o.textContent, 40));
      return {
        line: `combobox "${labelOf(el)}" value="${clean(chosen, 60)}" options: ${options.join(" | ")}`,
        act: true,
      };
    }
    if (tag === "img") {
      const alt = clean(el.getAttribute("alt"));
      return alt ? { line: `img "${alt}"`, act: false } : undefined;
    }
    if (tag === "form") return { line: "form", act: true };
    if (role === "link" || role === "tab" || role === "menuitem" || role === "checkbox" || role === "option") {
      return { line: `${role} "${clean(el.textContent) || labelOf(el)}"`, act: true };
    }
    return undefined;
  };
  // The element's own text, not its children's: a paragraph's words, once.
  const ownText = (el: Element): string =>
    clean(
      Array.from<Element>(el.childNodes)
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent)
        .join(" "),
    );
  const push = (line: string, depth: number): boolean => {
    const text = `${"  ".repeat(depth)}- ${line}`;
    if (chars + text.length + 1 > opts.maxChars) {
      truncated = true;
      return false;
    }
    lines.push(text);
    chars += text.length + 1;
    return true;
  };
  const walk = (el: Element, depth: number): void => {
    if (truncated || !visible(el)) return;
    const tag = el.tagName.toLowerCase();
    if (tag === "script" || tag === "style" || tag === "noscript" || tag === "template" || tag === "svg") return;
    const described = describe(el);
    let childDepth = depth;
    if (described) {
      let line = described.line;
      if (described.act) {
        refs++;
        const ref = `e${refs}`;
        el.setAttribute("data-fermix-ref", ref);
        line += ` [ref=${ref}]`;
      }
      if (described.act || !opts.interactiveOnly) {
        if (!push(line, depth)) return;
        childDepth = depth + 1;
      }
      // A link's or button's words are its name: not repeated as text below it.
      if (tag === "a" || tag === "button" || /^h[1-6]$/.test(tag)) return;
    } else if (!opts.interactiveOnly) {
      const text = ownText(el);
      if (text && !["html", "body"].includes(tag)) {
        if (!push(`text "${text}"`, depth)) return;
      }
    }
    if (childDepth > opts.depth) return;
    const children = Array.from<Element>(el.children);
    for (const child of children.slice(0, opts.maxChildren)) walk(child, childDepth);
    if (children.length > opts.maxChildren) {
      push(`… ${children.length - opts.maxChildren} more elements`, childDepth);
      truncated = true;
    }
  };
  if (document.body) walk(document.body, 0);
  return { text: lines.join("\n"), refs, truncated };
}
