import type { Observers } from "../observability/observers.ts";
import type { Traces } from "../observability/traces.ts";
import { failoverEvent } from "./loop-traces.ts";
import type { TurnEvents } from "./turn-events.ts";

/** Every failover as an agent_event trace line, under the turn's session when it is traced. */
export function traceFailovers(events: Observers<TurnEvents>, traces: Pick<Traces, "write">): void {
  events.on("failover", (i) => traces.write("agent_event", failoverEvent(i)));
}
