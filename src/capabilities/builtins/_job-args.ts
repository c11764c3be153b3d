import * as v from "valibot";
import { defineError } from "../../error.ts";
import type { JobService } from "../../jobs/job-service-contract.ts";
import type { DeliveryMode, DeliveryTarget } from "../../jobs/job-types.ts";
import type { ConversationKey } from "../../memory/messages-contract.ts";
import { findProvider, PROVIDER_IDS } from "../../providers/descriptors.ts";
import { builtOnce } from "../../valibot-lazy.ts";
import type { ToolContext } from "../tool.ts";
import { advertiseAs } from "../wire-schema.ts";

/*
 * The job tools' arguments: the valibot schemas the registry checks at the edge, and the rules a schema
 * cannot say (a delivery target's many spellings, a route pin's pair, tools the caller can see). A rule
 * that fails throws JobRefused with a sentence the model can act on; job-tools.ts turns it into an error result.
 */

export const JobRefused = defineError("job_refused");

/** Where a `channel` delivery can go: the chat platforms fermix has channels for. */
export const CHAT_PLATFORMS = ["telegram", "slack", "discord", "whatsapp", "signal"] as const;
const CHAT_KEYS = ["chat_id", "channel_id", "recipient", "target", "reply_target"] as const;
const THREAD_KEYS = ["thread", "thread_ts", "message_thread_id"] as const;
/** A run's wall clock and watchdog are timers; a day is far beyond any sensible run and well inside a timer's range. */
export const MAX_JOB_SECONDS = 86_400;

export const DELIVERY_MODES = ["none", "local", "origin", "channel"] as const satisfies readonly DeliveryMode[];
const CHANNEL_NEEDS_TARGET = `delivery_mode "channel" requires delivery_target with "platform" and one of: ${CHAT_KEYS.join(", ")}`;

/**
 * A tool's arguments as a strict object: a missing or unknown parameter is named, with what the tool takes,
 * rather than silently dropped. `refusals` explains known parameters the tool does not take (update_job's timeouts).
 */
export function jobArgs<E extends v.ObjectEntries>(tool: string, entries: E, refusals: Record<string, string> = {}) {
  const accepted = Object.keys(entries).join(", ");
  return v.strictObject(entries, (issue) => {
    if (issue.expected === "never") {
      const key = String(issue.input);
      return refusals[key] ?? `not a parameter of ${tool} (it takes ${accepted})`;
    }
    if (issue.path?.length) return "missing; this parameter is required";
    return `${tool} takes an object of named parameters (${accepted})`;
  });
}

const described = <S extends v.GenericSchema>(schema: S, text: string) => v.pipe(schema, v.description(text));

export const Text = (max: number) =>
  v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(max));
export const JobId = builtOnce(() =>
  described(Text(200), "the job's id, as list_jobs shows it (job names are not ids)"),
);
export const ScheduleArg = builtOnce(() =>
  described(
    Text(200),
    'when it runs: "every N minutes|hours|days", one ISO 8601 instant with offset, or 5-field cron (e.g. "0 8 * * 1-5")',
  ),
);
export const TimezoneArg = builtOnce(() =>
  described(Text(100), "IANA time zone for cron and local times, e.g. Europe/Berlin"),
);
export const SkillArg = builtOnce(() =>
  described(v.pipe(v.string(), v.trim(), v.maxLength(100)), "bind the run to this skill"),
);
export const ProviderArg = builtOnce(() => described(Text(100), "pin the runs to this provider (with model)"));
export const ModelArg = builtOnce(() => described(Text(200), "the pinned provider's model id (with provider)"));
export const AllowedToolsArg = builtOnce(() =>
  described(v.array(Text(100)), "narrow the runs to these of your tools; empty means no narrowing"),
);
export const Seconds = (what: string) =>
  described(
    v.pipe(
      v.number(),
      v.integer("must be a whole number of seconds"),
      v.minValue(1, "must be at least 1"),
      v.maxValue(MAX_JOB_SECONDS, `must be at most ${MAX_JOB_SECONDS} (a day)`),
    ),
    what,
  );
/** A run's own spending limit: checked before each of its model calls, with the owner's budgets. */
const Usd = builtOnce(() => v.pipe(v.number(), v.gtValue(0, "must be more than 0 (USD)")));
export const MaxUsdArg = builtOnce(() => described(Usd(), "USD limit per run"));
/** update_job's: null removes the limit. */
export const MaxUsdEdit = builtOnce(() => described(v.nullable(Usd()), "USD limit per run; null removes it"));
export const DeliveryModeArg = builtOnce(() =>
  described(
    v.picklist(DELIVERY_MODES),
    "none: keep the result; local: log it; origin: back to this conversation; channel: to delivery_target",
  ),
);

const ChatRef = builtOnce(() => v.optional(v.union([v.pipe(v.string(), v.trim()), v.number()])));
// The spellings of the platforms' own APIs, all accepted: normaliseTarget makes them one shape. The wire names
// only the canonical three, so every request does not pay for the aliases.
const TargetObject = builtOnce(() =>
  advertiseAs(
    v.object({
      platform: v.optional(v.pipe(v.string(), v.trim())),
      channel: v.optional(v.pipe(v.string(), v.trim())),
      chat_id: ChatRef(),
      channel_id: ChatRef(),
      recipient: ChatRef(),
      target: ChatRef(),
      reply_target: ChatRef(),
      thread: ChatRef(),
      thread_ts: ChatRef(),
      message_thread_id: ChatRef(),
    }),
    {
      type: "object",
      properties: {
        platform: { type: "string" },
        chat_id: { type: ["string", "number"] },
        thread: { type: ["string", "number"] },
      },
      required: ["platform", "chat_id"],
    },
  ),
);
export const DeliveryTargetArg = builtOnce(() =>
  described(
    v.union([v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty")), TargetObject()]),
    `a chat: {platform, chat_id[, thread]} or "<platform>:<chat_id>[:<thread>]"; platform one of ${CHAT_PLATFORMS.join(", ")}`,
  ),
);
export type DeliveryTargetInput = v.InferOutput<ReturnType<typeof DeliveryTargetArg>>;

const text = (value: unknown): string | undefined => {
  if (typeof value === "number") return String(value);
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
};

/** Every accepted spelling of a target — object keys of several platforms, or the string shorthand — as one shape. */
export function normaliseTarget(input: DeliveryTargetInput): DeliveryTarget {
  let platform: string | undefined;
  let chat: string | undefined;
  let thread: string | undefined;
  if (typeof input === "string") {
    const [head, id, ...rest] = input.split(":");
    platform = text(head);
    chat = text(id);
    thread = text(rest.join(":"));
    if (!platform || !chat) {
      throw JobRefused(`delivery_target "${input}" is not "<platform>:<chat_id>[:<thread>]", e.g. "telegram:12345"`);
    }
  } else {
    const fields = input as Record<string, unknown>;
    platform = text(fields.platform) ?? text(fields.channel);
    chat = CHAT_KEYS.map((k) => text(fields[k])).find(Boolean);
    thread = THREAD_KEYS.map((k) => text(fields[k])).find(Boolean);
    if (!platform) throw JobRefused('delivery_target is missing "platform"');
    if (!chat) throw JobRefused(`delivery_target is missing the chat: give one of ${CHAT_KEYS.join(", ")}`);
  }
  platform = platform.toLowerCase();
  if (!(CHAT_PLATFORMS as readonly string[]).includes(platform)) {
    throw JobRefused(
      `delivery_target platform "${platform}" is not a chat platform; use one of ${CHAT_PLATFORMS.join(", ")} (or delivery_mode "origin" for this conversation)`,
    );
  }
  // "root" is how an origin string says "no thread".
  return { platform, chat_id: chat, ...(thread && thread !== "root" ? { thread } : {}) };
}

export type Delivery = { mode: DeliveryMode; target: DeliveryTarget | null };

/**
 * The delivery a job gets. No mode: an explicit target means `channel`, else `fallbackMode`. `origin` is
 * resolved to `origin` (the conversation the job belongs to) and refused without one; none/local carry no
 * target. `current` (update_job) lets a job already delivering to a channel keep its target when only the
 * mode is named.
 */
export function resolveDelivery(
  args: { delivery_mode?: DeliveryMode; delivery_target?: DeliveryTargetInput },
  opts: { fallbackMode: DeliveryMode; origin: ConversationKey | undefined; current?: Delivery },
): Delivery {
  const explicit = args.delivery_target === undefined ? undefined : normaliseTarget(args.delivery_target);
  const mode = args.delivery_mode ?? (explicit ? "channel" : opts.fallbackMode);
  switch (mode) {
    case "none":
    case "local":
      return { mode, target: null };
    case "origin": {
      if (explicit) {
        throw JobRefused(
          'delivery_mode "origin" delivers to the conversation the job belongs to; drop delivery_target, or use delivery_mode "channel" with it',
        );
      }
      const origin = opts.origin;
      if (!origin?.channel || !origin.chat) {
        throw JobRefused(
          'delivery_mode "origin" requires a conversation context — schedule from a channel or pass an explicit delivery_target',
        );
      }
      return {
        mode,
        target: { platform: origin.channel, chat_id: origin.chat, ...(origin.thread ? { thread: origin.thread } : {}) },
      };
    }
    case "channel": {
      const target = explicit ?? (opts.current?.mode === "channel" ? opts.current.target : null);
      if (!target) throw JobRefused(CHANNEL_NEEDS_TARGET);
      return { mode, target };
    }
  }
}

const OFFSET_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** expires_at: an ISO 8601 instant with its UTC offset (a bare local time would be ambiguous), in the future. */
export function parseExpiresAt(value: string, now: number): number {
  const at = OFFSET_INSTANT.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) {
    throw JobRefused(
      `expires_at "${value}" is not an ISO 8601 instant with a UTC offset; write it like "2026-12-31T23:00:00+01:00"`,
    );
  }
  if (at <= now) {
    throw JobRefused(`expires_at ${value} is in the past; give a future instant (now is ${isoSeconds(now)})`);
  }
  return at;
}

/** allowed_tools may only name tools the caller can use now: a job never widens its creator's reach. */
export function checkAllowedTools(names: readonly string[], ctx: Pick<ToolContext, "surface">): string[] {
  const unique = [...new Set(names)];
  const visible = new Set(ctx.surface().map((t) => t.name));
  const missing = unique.filter((name) => !visible.has(name));
  if (missing.length) throw JobRefused(`tools not available to the caller: ${missing.join(", ")}`);
  return unique;
}

/** A skill the job binds to must exist now (it is looked up again at every run). */
export async function checkSkill(name: string, ctx: Pick<ToolContext, "skills" | "surface">): Promise<void> {
  if (!ctx.skills) throw JobRefused("skills are not available here, so skill_name cannot be set");
  const { skills } = await ctx.skills.load();
  if (skills.some((s) => s.name === name)) return;
  const howToList = ctx.surface().some((t) => t.name === "skill_list")
    ? "skill_list shows the skills there are"
    : "the owner can list the skills with `fermix skills list`";
  throw JobRefused(`unknown skill "${name}"; ${howToList}`);
}

/**
 * A route pin is provider and model together (a provider without a model, or the reverse, is refused), the provider
 * known and configured — checked by the routes the runner will use, so a pin that would fail every run fails now.
 */
export function checkPin(
  args: { provider?: string; model?: string },
  service: Pick<JobService, "checkRoute">,
): { provider: string; model: string } | undefined {
  const { provider, model } = args;
  if (provider === undefined && model === undefined) return undefined;
  if (provider === undefined || model === undefined) {
    const given = provider === undefined ? "model" : "provider";
    throw JobRefused(
      `a route pin needs both provider and model, but only ${given} was given; set both, or neither to use the default route`,
    );
  }
  if (!findProvider(provider)) {
    throw JobRefused(`unknown provider "${provider}"; known providers: ${PROVIDER_IDS.join(", ")}`);
  }
  const problem = service.checkRoute({ provider, model });
  if (problem) throw JobRefused(`provider "${provider}" cannot be pinned: ${problem}`);
  return { provider, model };
}

/** An instant as the job tools show it: ISO 8601 UTC, whole seconds. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
