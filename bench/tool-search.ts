/**
 * How fast is tool_search over a large deferred catalog? Generates 1,000 plugin-like tools (50 services × 20
 * actions, each with described parameters), then times: the cold catalog build (valibot → JSON Schema → search
 * text, once per tool per process), the BM25 index build, the first search after a new turn's split, and
 * tool_search calls through registry.dispatch (argument validation and the surface check included). Prints
 * median and p99 in ms and PASS/MISS against a median < 5 ms (p99 < 20 ms); asserts only that every search
 * answered with a hit.
 *
 *   bun bench/tool-search.ts [--tools N] [--reps N]
 */
import { parseArgs } from "node:util";
import * as v from "valibot";
import type { Caller } from "../src/capabilities/caller.ts";
import { searchText } from "../src/capabilities/deferral/_catalog.ts";
import { createBm25Index } from "../src/capabilities/deferral/bm25.ts";
import type { DeferralContext } from "../src/capabilities/deferral/bridges.ts";
import { splitSurface } from "../src/capabilities/deferral/split.ts";
import { createRegistry } from "../src/capabilities/registry.ts";
import { type AnyTool, defineTool } from "../src/capabilities/tool.ts";

const TARGET_MEDIAN_MS = 5;
const TARGET_P99_MS = 20;

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: { tools: { type: "string", default: "1000" }, reps: { type: "string", default: "20" } },
});
const TOOLS = Number(flags.tools);
const REPS = Number(flags.reps);
if (!Number.isInteger(TOOLS) || TOOLS < 1 || !Number.isInteger(REPS) || REPS < 1) {
  console.error("--tools and --reps take whole numbers");
  process.exit(2);
}

const SERVICES = (
  "slack github gitlab notion jira linear asana trello confluence dropbox gdrive gmail outlook calendar zoom " +
  "figma stripe shopify hubspot salesforce zendesk intercom sentry datadog pagerduty grafana vercel netlify " +
  "cloudflare aws gcp azure docker kubernetes postgres mysql redis mongo airtable todoist discord telegram " +
  "twilio sendgrid mailchimp spotify youtube twitter reddit wikipedia"
).split(" ");

// verb, object, description template ({s} = service), parameters
const ACTIONS: Array<[string, string, string, Record<string, string>]> = [
  ["list", "items", "List items in {s}, newest first.", { limit: "How many items.", cursor: "Pagination cursor." }],
  ["get", "item", "Get one {s} item by its ID, with all fields.", { id: "The item ID." }],
  ["create", "item", "Create a new item in {s}.", { title: "Title of the item.", body: "Body text." }],
  ["update", "item", "Update fields of an existing {s} item.", { id: "The item ID.", fields: "Fields as JSON." }],
  ["delete", "item", "Delete a {s} item permanently.", { id: "The item ID." }],
  ["search", "items", "Search {s} items by keywords and filters.", { query: "Search words.", filter: "Filter." }],
  ["list", "users", "List users and members of the {s} workspace.", { limit: "How many users." }],
  ["get", "user", "Get the profile of one {s} user.", { user_id: "The user ID." }],
  ["add", "comment", "Add a comment to a {s} item.", { id: "The item ID.", text: "Comment text." }],
  ["list", "comments", "List comments on a {s} item.", { id: "The item ID." }],
  ["upload", "file", "Upload a file to {s} and attach it.", { filename: "File name.", content: "File contents." }],
  ["download", "file", "Download a file stored in {s}.", { file_id: "The file ID." }],
  ["send", "message", "Send a message through {s}.", { to: "Recipient.", text: "Message text." }],
  ["list", "projects", "List projects or workspaces in {s}.", { archived: "Include archived projects." }],
  ["create", "project", "Create a new project in {s}.", { name: "Project name.", owner: "Owner user ID." }],
  ["archive", "project", "Archive a {s} project so it becomes read-only.", { project_id: "The project ID." }],
  ["list", "webhooks", "List webhooks configured in {s}.", {}],
  ["create", "webhook", "Register a webhook that {s} calls on events.", { url: "Callback URL.", events: "Events." }],
  ["get", "usage", "Get API usage, quotas and billing for the {s} account.", { month: "Month as YYYY-MM." }],
  ["export", "report", "Export a {s} report as CSV.", { report_id: "The report.", range: "Date range." }],
];

function generate(count: number): AnyTool[] {
  const tools: AnyTool[] = [];
  for (let i = 0; tools.length < count; i++) {
    const [verb, object, template, params] = ACTIONS[i % ACTIONS.length]!;
    const service = SERVICES[Math.floor(i / ACTIONS.length) % SERVICES.length]!;
    const round = Math.floor(i / (ACTIONS.length * SERVICES.length));
    const name = `${service}${round ? round + 1 : ""}_${verb}_${object}`;
    const entries: Record<string, v.GenericSchema> = {};
    for (const [key, text] of Object.entries(params)) entries[key] = v.pipe(v.string(), v.description(text));
    tools.push(
      defineTool({
        name,
        description: template.replace("{s}", service),
        policy: "network",
        readOnly: verb !== "create" && verb !== "update" && verb !== "delete",
        parameters: v.object(entries),
        execute: async () => name,
      }),
    );
  }
  return tools;
}

const QUERIES = [
  "list slack users",
  "send a message on telegram",
  "upload a file to dropbox",
  "create a jira project",
  "search github items",
  "export a stripe report as csv",
  "register a webhook for shopify events",
  "api usage and billing for aws",
  "comment on a linear item",
  "delete a notion item permanently",
  "download a file from gdrive",
  "archive the old asana project",
  "who are the members of the discord workspace",
  "get a sentry item by id",
  "update fields of a hubspot record",
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

function timeMs(work: () => void): number {
  const t0 = performance.now();
  work();
  return performance.now() - t0;
}

const operator: Caller = { trust: "operator", local: true, attended: true };
const plugins = generate(TOOLS);
const pluginSet = new Set(plugins);
const registry = createRegistry(plugins);

// Cold: every tool's schema converted and flattened to search text, then indexed — the first search of a process.
let texts: string[] = [];
const catalogMs = timeMs(() => {
  texts = plugins.map(searchText);
});
const indexMs = timeMs(() => {
  createBm25Index(plugins.map((t, i) => ({ id: t.name, text: texts[i]! })));
});

function turn() {
  const split = splitSurface(registry.surface(operator), { enabled: true, isDeferrable: (t) => pluginSet.has(t) });
  const ctx = {
    caller: operator,
    surface: () => split.callable,
    deferred: split.deferred,
    signal: new AbortController().signal,
  } as unknown as DeferralContext;
  return { split, ctx };
}

const search = (ctx: DeferralContext, query: string) =>
  registry.dispatch({ type: "tool_call", id: "bench", name: "tool_search", arguments: { query } }, ctx);

// Per turn: a new split means a new deferred list; with the same tools the first search reuses the last index.
const firstSearches: number[] = [];
for (let i = 0; i < 10; i++) {
  const { ctx } = turn();
  const t0 = performance.now();
  await search(ctx, QUERIES[i % QUERIES.length]!);
  firstSearches.push(performance.now() - t0);
}

const { ctx, split } = turn();
await search(ctx, "warm up");
const latencies: number[] = [];
for (let r = 0; r < REPS; r++) {
  for (const query of QUERIES) {
    const t0 = performance.now();
    const outcome = await search(ctx, query);
    latencies.push(performance.now() - t0);
    if (outcome.isError || outcome.content.startsWith("No "))
      throw new Error(`"${query}" found nothing: ${outcome.content}`);
  }
}

const sorted = [...latencies].sort((a, b) => a - b);
const median = percentile(sorted, 0.5);
const p99 = percentile(sorted, 0.99);
const firstMedian = percentile(
  [...firstSearches].sort((a, b) => a - b),
  0.5,
);
const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

console.log(`tool_search over ${split.deferred.length} deferred tools (${latencies.length} searches)`);
console.log(`  cold catalog (schema → search text): ${catalogMs.toFixed(1)} ms`);
console.log(`  index build:                         ${indexMs.toFixed(1)} ms`);
console.log(`  per-turn first search (new split):    ${firstMedian.toFixed(2)} ms (median of ${firstSearches.length})`);
console.log(
  `  search median: ${median.toFixed(3)} ms  ${verdict(median < TARGET_MEDIAN_MS)} (< ${TARGET_MEDIAN_MS} ms)`,
);
console.log(`  search p99:    ${p99.toFixed(3)} ms  ${verdict(p99 < TARGET_P99_MS)} (< ${TARGET_P99_MS} ms)`);
