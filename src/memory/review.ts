import { existsSync } from "node:fs";
import * as v from "valibot";
import { defineError } from "../error.ts";
import type { SqlDatabase } from "../runtime/sqlite.ts";
import { CATEGORIES, createMemoryStore, MAX_KEY_CHARS, MAX_VALUE_CHARS } from "./memories.ts";
import type { Fact } from "./memories-contract.ts";
import { parseModelJson } from "./model-json.ts";
import { PROFILES, type ProfileName, renderProfile } from "./profiles.ts";
import { createResources } from "./resources.ts";
import type { Revision, RevisionSummary } from "./resources-contract.ts";
import type { ProfileUpdate, Review, ReviewReport } from "./review-contract.ts";
import REVIEW_PROMPT from "./review-prompt.md" with { type: "text" };
import { OWNER_SCOPE } from "./scopes.ts";

/** The spec's ~24 h gate between background reviews. */
export const REVIEW_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** A failed review (provider down, unusable answer) is tried again after an hour, not after a day. */
export const RETRY_AFTER_MS = 60 * 60 * 1000;

export const NotRestorable = defineError<{ id: number }>("revision_not_restorable");

const LAST_RUN = "review.last_run_at";
const RENDERED = "review.rendered:";
/** The default cap on facts one review may replace, and on those it may retire ([fermix_core.memory] review_max_changes). */
export const MAX_CHANGES = 500;
/** The schema's ceiling; the configured cap (at most this) is checked after parsing. */
const MAX_CHANGES_CAP = 5000;

/** What the review model must answer. */
export const ReviewAnswer = v.object({
  replace: v.optional(
    v.pipe(
      v.array(
        v.object({
          key: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(MAX_KEY_CHARS)),
          value: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(MAX_VALUE_CHARS)),
          category: v.picklist(CATEGORIES),
        }),
      ),
      v.maxLength(MAX_CHANGES_CAP),
    ),
    [],
  ),
  retire: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(MAX_KEY_CHARS))),
      v.maxLength(MAX_CHANGES_CAP),
    ),
    [],
  ),
});
export type ReviewAnswer = v.InferOutput<typeof ReviewAnswer>;

export type ReviewDeps = {
  db: SqlDatabase;
  now: () => number;
  /** One model call without tools; throws when the provider fails. */
  complete: (system: string, prompt: string) => Promise<string>;
  paths: { userMd: string; memoryMd: string };
  /** [fermix_core.memory]: the gate, the retry delay and the change cap; each defaults to the constants above. */
  settings?: { intervalMs?: number; retryAfterMs?: number; maxChanges?: number };
};

/**
 * The background memory review ("dreaming"): one model call consolidates the owner's facts, replacing
 * stale ones rather than appending, then USER.md and MEMORY.md are rebuilt from what is live. A profile is
 * rewritten only when the facts behind it changed, so a restored revision stays until they do.
 */
export function createReview(deps: ReviewDeps): Review {
  const memory = createMemoryStore(deps.db, deps.now);
  const resources = createResources(deps.db, deps.now);
  const files: Record<ProfileName, string> = { user: deps.paths.userMd, memory: deps.paths.memoryMd };
  const getState = deps.db.query("SELECT value FROM memory_state WHERE key = $key");
  const setState = deps.db.query(
    "INSERT INTO memory_state (key, value) VALUES ($key, $value) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  const state = (key: string) => (getState.get({ key }) as { value: string } | null)?.value;
  const lastRun = () => {
    const value = state(LAST_RUN);
    return value === undefined ? undefined : Number(value);
  };
  let running: Promise<ReviewReport> | undefined;
  const intervalMs = deps.settings?.intervalMs ?? REVIEW_INTERVAL_MS;
  const retryAfterMs = deps.settings?.retryAfterMs ?? RETRY_AFTER_MS;
  const maxChanges = deps.settings?.maxChanges ?? MAX_CHANGES;

  /** Takes the gate in one transaction, so a daemon and a CLI sharing memory.db do not both run a due review. */
  const claim = (t: number, force: boolean): ReviewReport | undefined => {
    return deps.db
      .transaction(() => {
        const last = lastRun();
        if (!force && last !== undefined && t - last < intervalMs) {
          return {
            status: "skipped" as const,
            reason: `the last review was less than ${hours(intervalMs)} ago`,
            nextAt: last + intervalMs,
          };
        }
        setState.run({ key: LAST_RUN, value: String(t) });
        return undefined;
      })
      .immediate();
  };

  const failed = (t: number, error: string): ReviewReport => {
    const nextAt = t + retryAfterMs;
    setState.run({ key: LAST_RUN, value: String(nextAt - intervalMs) });
    return { status: "failed", error, nextAt };
  };

  const review = async (t: number): Promise<ReviewReport> => {
    const facts = memory.liveFacts(OWNER_SCOPE);
    // Nothing to consolidate, and an empty profile must not replace a file the owner wrote by hand.
    if (!facts.length) return { status: "skipped", reason: "no facts about the owner are stored yet" };
    let text: string;
    try {
      text = await deps.complete(REVIEW_PROMPT, describeFacts(facts, t));
    } catch (err) {
      return failed(t, `the review model call failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const answer = parseAnswer(text);
    if (!answer.ok) return failed(t, `the review model's answer was not usable, so nothing changed: ${answer.error}`);
    const over = Math.max(answer.value.replace.length, answer.value.retire.length);
    if (over > maxChanges) {
      return failed(
        t,
        `the review model asked for ${over} changes, over the limit of ${maxChanges}, so nothing changed`,
      );
    }
    let applied: { replaced: string[]; retired: string[] };
    try {
      applied = apply(answer.value);
    } catch (err) {
      return failed(t, `the review's changes were not applied: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { status: "done", facts: facts.length, ...applied, files: rebuild() };
  };

  /** All of the answer or none of it. */
  const apply = (answer: ReviewAnswer) =>
    deps.db
      .transaction(() => {
        const replaced: string[] = [];
        const retired: string[] = [];
        const replacing = new Set(answer.replace.map((r) => r.key.toLowerCase()));
        for (const r of answer.replace) {
          const outcome = memory.store({ scope: OWNER_SCOPE, ...r, source: "memory review" });
          if (!outcome.ok) throw new Error(`${r.key}: ${outcome.error}`);
          if (outcome.status !== "unchanged") replaced.push(outcome.fact.key);
        }
        for (const key of answer.retire) {
          // Retiring a key the same answer replaces would only undo the replacement.
          if (!replacing.has(key.toLowerCase()) && memory.retire(OWNER_SCOPE, key)) retired.push(key);
        }
        return { replaced, retired };
      })
      .immediate();

  const rebuild = (): ProfileUpdate[] => {
    const facts = memory.liveFacts(OWNER_SCOPE);
    const updates: ProfileUpdate[] = [];
    for (const name of Object.keys(PROFILES) as ProfileName[]) {
      const { resource } = PROFILES[name];
      const text = renderProfile(name, facts);
      if (text === state(RENDERED + resource) && existsSync(files[name])) continue;
      const revision = resources.write(resource, files[name], text, "memory review");
      setState.run({ key: RENDERED + resource, value: text });
      updates.push({ name: resource, revisionId: revision.id, revision: revision.revision });
    }
    return updates;
  };

  const run = (force: boolean): Promise<ReviewReport> => {
    if (running) return force ? running : Promise.resolve({ status: "skipped", reason: "a review is already running" });
    const t = deps.now();
    const gate = claim(t, force);
    if (gate) return Promise.resolve(gate);
    running = review(t)
      .catch((err) => failed(t, `the review failed: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  return {
    maybeRun: () => run(false),
    runNow: () => run(true),

    restore(revisionId: number): Revision {
      const old = resources.get(revisionId);
      const name = (Object.keys(PROFILES) as ProfileName[]).find((n) => PROFILES[n].resource === old.name);
      if (!name) {
        throw NotRestorable(`revision ${revisionId} belongs to ${old.name}, which the memory review does not manage`, {
          id: revisionId,
        });
      }
      return resources.write(old.name, files[name], old.content, `restored revision ${old.revision}`);
    },

    listRevisions: (name?: string): RevisionSummary[] => resources.list(name),
  };
}

function hours(ms: number): string {
  const h = ms / 3_600_000;
  return h === 1 ? "1 hour" : `${Number(h.toFixed(2))} hours`;
}

/** The model sees each live fact with its age, grouped by category, so it can tell stale from current. */
function describeFacts(facts: readonly Fact[], now: number): string {
  const lines = [`Today is ${day(now)}. The owner's facts, by category:`];
  for (const category of CATEGORIES) {
    const own = facts.filter((f) => f.category === category);
    if (!own.length) continue;
    lines.push("", `## ${category}`);
    for (const f of own) {
      const sure = f.confidence < 1 ? `, confidence ${f.confidence}` : "";
      lines.push(`- ${f.key}: ${f.value} (updated ${day(f.updatedAt)}${sure})`);
    }
  }
  return lines.join("\n");
}

export function parseAnswer(text: string): { ok: true; value: ReviewAnswer } | { ok: false; error: string } {
  return parseModelJson(text, ReviewAnswer);
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
