import type { Session } from "./session-store-contract.ts";

/** Text for HTML content and attribute values: the five characters that could end either. */
export function escapeHtml(text: unknown): string {
  return String(text ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** Already-escaped markup, so a page can nest fragments without escaping them twice. */
export type Html = { readonly html: string };

/** A tagged template that escapes every interpolated value unless it is already `Html` (or a list of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return { html: out };
}

function render(value: unknown): string {
  if (Array.isArray(value)) return value.map(render).join("");
  if (value && typeof value === "object" && "html" in value) return (value as Html).html;
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(value);
}

/** The links across the top: one per page in pages.ts. */
export type NavLink = { path: string; title: string };

/** Every page's frame: the nav, the body, and a logout form carrying the session's form token. */
export function layout(opts: { title: string; nav: NavLink[]; current: string; session: Session; body: Html }): string {
  const links = opts.nav.map((link) =>
    link.path === opts.current ? html`<strong>${link.title}</strong>` : html`<a href="${link.path}">${link.title}</a>`,
  );
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · fermix</title><link rel="stylesheet" href="/style.css"></head>
<body><header><nav>${links.map((l, i) => (i ? html` · ${l}` : l))}</nav>
<form method="post" action="/logout"><input type="hidden" name="csrf" value="${opts.session.csrf}"><button>Log out</button></form></header>
<main><h1>${opts.title}</h1>${opts.body}</main></body></html>`.html
  }`;
}

/** The one stylesheet (CSP allows styles from 'self' only, so nothing is inline). */
export const STYLESHEET = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{display:flex;justify-content:space-between;align-items:center;padding:.5rem 1.5rem;background:#fff;border-bottom:1px solid #ddd}
header form{margin:0}main{max-width:60rem;margin:0 auto;padding:1rem 1.5rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #eee;vertical-align:top}
.ok{color:#1a7f37}.warn{color:#9a6700}.fail{color:#cf222e}code{background:#f0f0f0;padding:0 .2rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:1rem}.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.75rem 1rem}
svg.chart{display:block;width:100%;height:auto;background:#fff;border:1px solid #ddd;border-radius:6px}
caption{text-align:left;color:#555;padding:.3rem 0}table.usage td:nth-child(n+3){font-variant-numeric:tabular-nums}
`;
