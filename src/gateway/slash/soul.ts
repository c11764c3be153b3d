import { readFileSync } from "node:fs";
import { defineSlashCommand, type SlashContext } from "./command.ts";
import { SOUL_RESOURCE, type SoulDeps } from "./soul-deps.ts";
import type { SoulDraft } from "./soul-drafts-contract.ts";
import { draftSoulEdit, parseReviewArgs } from "./soul-review.ts";

const USAGE =
  "Usage: /soul, /soul review [instruction] [--with-context], /soul diff TOKEN, /soul apply TOKEN, /soul history, /soul revert N, /soul reset.";
const HISTORY_SHOWN = 20;

/**
 * The persona file, curated by the owner and never by the agent on its own: a review drafts, a second explicit
 * step applies, and every write (reverts and resets too) is a revision in the resource registry.
 */
export const soulCommand = defineSlashCommand({
  name: "soul",
  access: "owner_only",
  usage: "/soul",
  summary: "review, change and version the persona file SOUL.md (/soul review, apply, history, revert, reset)",
  async run({ args, ctx }) {
    if (!ctx.soul) return "SOUL.md curation is not available here.";
    const soul = ctx.soul();
    const [sub = "", ...rest] = args.split(/\s+/);
    const tail = rest.join(" ").trim();
    switch (sub.toLowerCase()) {
      case "":
        return status(soul);
      case "history":
        return history(soul);
      case "review":
        return review(soul, ctx, tail);
      case "diff":
        return diff(soul, ctx, tail);
      case "apply":
        return apply(soul, ctx, tail);
      case "revert":
        return revert(soul, tail);
      case "reset":
        return reset(soul);
      default:
        return USAGE;
    }
  },
});

function status(soul: SoulDeps): string {
  const latest = soul.resources.latest(SOUL_RESOURCE);
  if (!latest) {
    return "SOUL.md has no revisions yet: it is as it was seeded, or as you last edited it by hand. /soul review drafts a change; every change made here is versioned.";
  }
  const edited =
    (readSoul(soul) ?? "") !== latest.content
      ? " It was edited by hand since then; the next change here keeps that text as a revision first."
      : "";
  return `SOUL.md is at revision ${latest.revision} (${day(latest.createdAt)}, ${latest.reason}).${edited} /soul history lists the revisions; /soul review drafts a change.`;
}

function history(soul: SoulDeps): string {
  const revisions = soul.resources.list(SOUL_RESOURCE);
  if (!revisions.length) return "SOUL.md has no revisions yet.";
  const lines = revisions
    .slice(0, HISTORY_SHOWN)
    .map((r) => `r${r.revision}  ${day(r.createdAt)}  ${r.reason}${r.current ? "  (current)" : ""}`);
  if (revisions.length > HISTORY_SHOWN) lines.push(`… and ${revisions.length - HISTORY_SHOWN} older`);
  return ["SOUL.md revisions, newest first:", ...lines, "/soul revert N brings revision N back."].join("\n");
}

async function review(soul: SoulDeps, ctx: SlashContext, args: string): Promise<string> {
  const current = readSoul(soul) ?? "";
  const outcome = await draftSoulEdit(current, parseReviewArgs(args), soul);
  if (outcome.kind === "declined") return `No change drafted: ${outcome.rationale}`;
  const draft = {
    base: current,
    proposed: outcome.proposed,
    rationale: outcome.rationale,
    diff: outcome.diff,
    warning: outcome.warning,
    conversation: ctx.conversation,
  };
  const { token } = soul.drafts.save(draft);
  return `${renderDraft(draft)}\n\nApply it with /soul apply ${token} within 5 minutes (/soul diff ${token} shows it again). Nothing changes until then.`;
}

function diff(soul: SoulDeps, ctx: SlashContext, token: string): string {
  if (!token) return "Usage: /soul diff TOKEN (the token from /soul review).";
  const found = soul.drafts.get(token, ctx.conversation);
  if (!found.ok) return `No draft to show: ${found.reason}.`;
  return `${renderDraft(found.draft)}\n\n/soul apply ${token.trim().toUpperCase()} applies it.`;
}

function apply(soul: SoulDeps, ctx: SlashContext, token: string): string {
  if (!token) return "Usage: /soul apply TOKEN (the token from /soul review).";
  const found = soul.drafts.take(token, ctx.conversation);
  if (!found.ok) return `Not applied: ${found.reason}.`;
  if ((readSoul(soul) ?? "") !== found.draft.base) {
    return "Not applied: SOUL.md changed since this draft was made. Run /soul review again.";
  }
  const written = soul.resources.write(
    SOUL_RESOURCE,
    soul.file,
    found.draft.proposed,
    `/soul apply: ${short(found.draft.rationale)}`,
  );
  return `SOUL.md updated: revision ${written.revision}.${undo(written.revision)}`;
}

function revert(soul: SoulDeps, arg: string): string {
  const wanted = /^r?(\d+)$/i.exec(arg)?.[1];
  if (!wanted) return "Usage: /soul revert N (/soul history lists the revisions).";
  const summary = soul.resources.list(SOUL_RESOURCE).find((r) => r.revision === Number(wanted));
  if (!summary) return `SOUL.md has no revision ${wanted}; /soul history lists them.`;
  const old = soul.resources.get(summary.id);
  if ((readSoul(soul) ?? "") === old.content) return `SOUL.md already has revision ${wanted}'s text.`;
  const written = soul.resources.write(SOUL_RESOURCE, soul.file, old.content, `/soul revert ${wanted}`);
  return `SOUL.md is back to revision ${wanted}'s text, saved as revision ${written.revision}.${undo(written.revision)}`;
}

function reset(soul: SoulDeps): string {
  if ((readSoul(soul) ?? "") === soul.shipped) return "SOUL.md is already the shipped default.";
  const written = soul.resources.write(SOUL_RESOURCE, soul.file, soul.shipped, "/soul reset: the shipped default");
  return `SOUL.md is the shipped default again, saved as revision ${written.revision}.${undo(written.revision)}`;
}

/** A write records what it replaced first, so the revision before a new one is what to go back to. */
function undo(revision: number): string {
  return revision > 1 ? ` /soul revert ${revision - 1} undoes this.` : "";
}

function renderDraft(draft: Pick<SoulDraft, "rationale" | "diff" | "warning">): string {
  return [
    `Draft for SOUL.md: ${draft.rationale}`,
    ...(draft.warning ? [draft.warning] : []),
    "```diff",
    draft.diff,
    "```",
  ].join("\n");
}

function readSoul(soul: SoulDeps): string | undefined {
  try {
    return readFileSync(soul.file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function short(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}
