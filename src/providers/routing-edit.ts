import { loadConfig } from "../config/load.ts";
import { ConfigEditFailed, editConfigText } from "../config/sandbox-edit.ts";
import type { Config } from "../config/schema.ts";
import { EFFORTS } from "../config/sections/providers.ts";
import { removeStatement, tableDoc, tomlString } from "../config/toml-text.ts";
import { defineError } from "../error.ts";
import { findProvider } from "./descriptors.ts";
import { validateRouting } from "./routing-config.ts";

const TABLE = "fermix_core.routing";

/** The keys the agent may change: sub-agents only. A scheduled job's route is the owner's (config.toml, `fermix jobs`). */
export const SETTABLE_ROUTING_KEYS = ["subagent_provider", "subagent_model", "subagent_reasoning_effort"] as const;
export const READABLE_ROUTING_KEYS = [
  ...SETTABLE_ROUTING_KEYS,
  "cron_provider",
  "cron_model",
  "cron_reasoning_effort",
] as const;
export type SettableRoutingKey = (typeof SETTABLE_ROUTING_KEYS)[number];
export type RoutingKey = (typeof READABLE_ROUTING_KEYS)[number];
export type RoutingValues = Partial<Record<RoutingKey, string>>;

export const RoutingRefused = defineError<{ key: string }>("routing_refused");

export type RoutingChange =
  | { action: "set"; key: SettableRoutingKey; value: string }
  | { action: "delete"; key: SettableRoutingKey };

/** [fermix_core.routing] as config.toml holds it now (unset keys left out). */
export function readRouting(config: Config): RoutingValues {
  const routing = config.fermix_core?.routing ?? {};
  const out: RoutingValues = {};
  for (const key of READABLE_ROUTING_KEYS) {
    const value = routing[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * Sets or deletes one sub-agent routing key, in place with comments kept. The routing is checked as a whole
 * after the change, before anything is written, the way the daemon checks it at load: a provider that is not
 * configured, a model another provider serves (a mis-pairing), or an unknown effort is refused with the reason,
 * and config.toml stays as it was.
 */
export async function editRouting(
  file: string,
  change: RoutingChange,
): Promise<{ changed: boolean; routing: RoutingValues }> {
  const config = await loadConfig(file);
  const routing: Record<string, string | undefined> = { ...config.fermix_core?.routing };
  if (change.action === "set") {
    const value = change.value.trim();
    if (!value) {
      throw RoutingRefused('Invalid value: it is blank; use action "delete" to clear a key', { key: change.key });
    }
    checkValue(config, change.key, value);
    routing[change.key] = value;
  } else {
    delete routing[change.key];
  }
  const merged = { ...config, fermix_core: { ...config.fermix_core, routing } } as Config;
  try {
    validateRouting(merged, file);
  } catch (err) {
    throw RoutingRefused((err as Error).message.replace(`${file}: `, ""), { key: change.key });
  }
  const target = change.action === "set" ? routing[change.key] : undefined;
  const { changed } = editConfigText(
    file,
    TABLE,
    (text) => {
      const out = putRoutingKey(text, change.key, target, file);
      return out === text ? null : out;
    },
    (c) => c.fermix_core?.routing?.[change.key] === target,
  );
  return { changed, routing: readRouting(merged) };
}

function checkValue(config: Config, key: SettableRoutingKey, value: string): void {
  if (key === "subagent_provider") {
    if (!findProvider(value)) throw RoutingRefused(`Invalid value: "${value}" is not a provider fermix knows`, { key });
    const blocks = (config.fermix_core?.providers ?? {}) as Record<string, unknown>;
    if (!blocks[value]) {
      throw RoutingRefused(
        `Invalid value: ${value} is not configured; the owner sets it up first (fermix setup --provider ${value})`,
        { key },
      );
    }
  }
  if (key === "subagent_reasoning_effort" && !(EFFORTS as readonly string[]).includes(value)) {
    throw RoutingRefused(`Invalid value: "${value}" is not an effort; one of ${EFFORTS.join(", ")}`, { key });
  }
}

/** Sets `key` in [fermix_core.routing] in place, or removes its line when `value` is undefined (the web's fieldset too). */
export function putRoutingKey(text: string, key: string, value: string | undefined, file: string): string {
  const doc = tableDoc(text, TABLE);
  if (doc.definedElsewhere) {
    throw ConfigEditFailed(
      `${file}: [${TABLE}] is also written as "${doc.definedElsewhere}" (dotted keys or an inline table); edit it by hand, or move it under a [${TABLE}] header.`,
      { file },
    );
  }
  const current = doc.statement(key);
  if (value === undefined) return current ? removeStatement(text, current) : text;
  const literal = tomlString(value);
  if (current?.value.trim() === literal) return text;
  return doc.setValue(key, literal, "end");
}
