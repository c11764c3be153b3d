import type { Log } from "../observability/log.ts";
import type { Observers } from "../observability/observers.ts";
import type { TurnEvents } from "./turn-events.ts";

/** The log lines every turn leaves: each tool's outcome, each provider failover. */
export function logTurns(events: Observers<TurnEvents>, log: { tools: Log; providers: Log }): void {
  events.on("tool_executed", (e) =>
    log.tools.info(
      `${e.name} ${e.ok ? "ok" : "error"} in ${e.durationMs} ms (${e.conversation.channel}:${e.conversation.chat})`,
    ),
  );
  events.on("failover", (i) =>
    log.providers.warn(`failing over from ${i.from} to ${i.to} after: ${i.failure.message}`),
  );
}
