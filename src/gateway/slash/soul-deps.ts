import { completeOnce } from "../../agent/complete.ts";
import { shippedTemplate } from "../../agent/prompt-files.ts";
import { defineError } from "../../error.ts";
import { randomHex } from "../../ids.ts";
import { createResources } from "../../memory/resources.ts";
import type { Resources } from "../../memory/resources-contract.ts";
import type { Traces } from "../../observability/traces.ts";
import type { RouterDeps } from "../../providers/router.ts";
import type { Route } from "../../providers/routes.ts";
import type { SqlDatabase } from "../../runtime/sqlite.ts";
import { housekeepingScope, scopedRouter } from "../../usage/meter.ts";
import { createSoulDrafts } from "./soul-drafts.ts";
import type { SoulDrafts } from "./soul-drafts-contract.ts";

export const SoulReviewCallFailed = defineError<{ provider?: string }>("soul_review_call_failed");

/** SOUL.md's name in the resource registry (the path under FERMIX_HOME, as USER.md's is). */
export const SOUL_RESOURCE = "bootstrap/main/SOUL.md";

/** What /soul works with. */
export type SoulDeps = {
  /** SOUL.md on disk. */
  file: string;
  /** Every write is a revision here, reverts and resets included. */
  resources: Pick<Resources, "latest" | "list" | "get" | "write">;
  drafts: SoulDrafts;
  /** The default this build ships, for /soul reset. */
  shipped: string;
  /** The review's one model call, no tools; throws a FermixError when the provider fails. */
  complete(system: string, prompt: string): Promise<string>;
  /** The owner's own recent messages, oldest first: never from a conversation a guest spoke in, never a job's. */
  ownerMessages(limit: number): string[];
};

/** The app's /soul: memory.db for revisions and drafts, the turn's routes and router for the review call. */
export function createSoulDeps(deps: {
  db: SqlDatabase;
  now: () => number;
  file: string;
  routes: () => Route[];
  router: RouterDeps;
  traces?: Traces;
}): SoulDeps {
  return {
    file: deps.file,
    resources: createResources(deps.db, deps.now),
    drafts: createSoulDrafts(deps.db, deps.now),
    shipped: shippedTemplate("SOUL.md") ?? "",
    ownerMessages: (limit) => recentOwnerMessages(deps.db, limit),
    async complete(system, prompt) {
      // The draft's one provider call gets its own session id, so its llm_call rows reassemble into one trace.
      const session = `soul-${randomHex(6)}`;
      const event = (name: string, extra: Record<string, unknown> = {}) =>
        deps.traces?.write("agent_event", { session_id: session, event: `soul_curation_${name}`, ...extra });
      event("run_start");
      const result = await completeOnce({
        routes: deps.routes(),
        router: scopedRouter(deps.router, housekeepingScope("soul_draft", session)),
        system,
        messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      });
      if (!result.ok) {
        event("run_error", { class: result.failure.class, provider: result.failure.provider });
        throw SoulReviewCallFailed(`The review call failed, so nothing was drafted: ${result.failure.message}`);
      }
      event("run_complete", { provider: result.provider, model: result.model });
      return result.text;
    },
  };
}

/**
 * User messages from conversations only the owner spoke in (conversation_trust has the operator and no guest):
 * a message does not record its sender, so a conversation a guest took part in is left out whole. Scheduled
 * runs (channel `cron`) are the owner's instructions to a job, not how they talk.
 */
export function recentOwnerMessages(db: SqlDatabase, limit: number): string[] {
  const rows = db
    .query(
      `SELECT m.text FROM messages m
       WHERE m.role = 'user' AND m.channel != 'cron' AND m.text != ''
         AND EXISTS (SELECT 1 FROM conversation_trust t WHERE t.channel = m.channel AND t.chat = m.chat
                     AND t.thread = m.thread AND t.trust = 'operator')
         AND NOT EXISTS (SELECT 1 FROM conversation_trust t WHERE t.channel = m.channel AND t.chat = m.chat
                         AND t.thread = m.thread AND t.trust = 'guest')
       ORDER BY m.id DESC LIMIT $limit`,
    )
    .all({ limit }) as Array<{ text: string }>;
  return rows.map((r) => r.text).reverse();
}
