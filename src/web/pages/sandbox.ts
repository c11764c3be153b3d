import { type Html, html } from "../html.ts";
import { definePage } from "../page.ts";

const list = (roots: string[]): Html =>
  roots.length ? html`<ul>${roots.map((r) => html`<li><code>${r}</code></li>`)}</ul>` : html`<p>none</p>`;

/**
 * The sandbox, read-only (spec: self-knowledge.md, "web setup has no roots field"): mode and roots, with the CLI
 * commands that change them. There is no form: roots are changed from the CLI, config.toml or /sandbox in chat.
 */
export const sandboxPage = definePage({
  path: "/setup/sandbox",
  title: "Sandbox",
  async render(deps) {
    const s = await deps.sandbox.status();
    return html`<p>What the agent's file and shell tools may touch. This page only shows it: change it from a terminal,
in config.toml ([sandbox]) or with <code>/sandbox</code> in a chat. A running daemon applies a change from its next turn.</p>
<table><tbody>
<tr><th>Mode</th><td><strong>${s.mode}</strong></td><td><code>fermix sandbox mode strict|standard|open</code></td></tr>
<tr><th>Isolation</th><td>${s.isolation === "none" ? "path checks only" : s.isolation}</td><td></td></tr>
<tr><th>Workspace</th><td><code>${s.workspaceRoot}</code></td><td>[sandbox] workspace_root in config.toml</td></tr>
<tr><th>Granted roots</th><td>${list(s.allowedRoots)}</td><td><code>fermix grant path PATH</code> · <code>fermix revoke path PATH</code></td></tr>
<tr><th>Blocked roots</th><td>${list(s.blockedRoots)}</td><td>[sandbox] blocked_roots in config.toml</td></tr>
</tbody></table>
<p>Protected paths (${s.protectedPaths.length}, such as <code>~/.ssh</code>) are denied in every mode.
<code>fermix sandbox status</code> shows all of this; <code>fermix sandbox explain PATH</code> says how one path is judged.</p>`;
  },
});
