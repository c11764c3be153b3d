import { memoryReviewSubsystem } from "./agent/memory-review-subsystem.ts";
import type { TurnSource } from "./agent/turn-addition.ts";
import { browserSubsystem } from "./browser/browser-subsystem.ts";
import { computerUseSubsystem } from "./computer-use/computer-use-subsystem.ts";
import { channelsSubsystem } from "./gateway/channels-subsystem.ts";
import { harnessSubsystem } from "./harness/harness-subsystem.ts";
import { jobsSubsystem } from "./jobs/jobs-subsystem.ts";
import { outboundMcpSubsystem } from "./mcp/outbound/outbound-subsystem.ts";
import { traceExportSubsystem } from "./observability/export/trace-export-subsystem.ts";
import { mcpSupervisorSubsystem } from "./plugins/mcp-rail/supervisor-subsystem.ts";
import { pluginsSubsystem } from "./plugins/plugins-subsystem.ts";
import { bindSubsystem, type Subsystem, type SubsystemDefinition } from "./subsystem.ts";
import { webSubsystem } from "./web/web-subsystem.ts";

/**
 * The daemon's parts that config.toml may switch on, in start order; they stop in reverse, only what was loaded.
 * Each is one file in its own folder, its code behind a dynamic import; adding one is that file plus a line here
 * (docs/ARCHITECTURE.md, "Adding a subsystem"). Trace export is first so that it is the last to stop: whatever
 * the stopping parts trace still goes out. The MCP supervisor comes before the two rails that share it.
 */
export const SUBSYSTEMS = {
  traceExport: traceExportSubsystem,
  memoryReview: memoryReviewSubsystem,
  mcpSupervisor: mcpSupervisorSubsystem,
  plugins: pluginsSubsystem,
  mcpServers: outboundMcpSubsystem,
  jobs: jobsSubsystem,
  channels: channelsSubsystem,
  harness: harnessSubsystem,
  browser: browserSubsystem,
  computerUse: computerUseSubsystem,
  web: webSubsystem,
};

type Definitions = typeof SUBSYSTEMS;
type DepsOf<D> = D extends SubsystemDefinition<infer Deps, any, any, any> ? Deps : never;
type ApiOf<D> = D extends SubsystemDefinition<any, infer Api, any, any> ? Api : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Everything the parts need from the composition root: the union of what each declares. */
export type SubsystemDeps = Intersection<DepsOf<Definitions[keyof Definitions]>>;

export type BoundSubsystems = { [K in keyof Definitions]: Subsystem<ApiOf<Definitions[K]>> } & {
  /** In list order. */
  list: readonly Subsystem[];
};

export function bindSubsystems(deps: SubsystemDeps): BoundSubsystems {
  const bound = Object.fromEntries(
    Object.entries(SUBSYSTEMS).map(([key, definition]) => [
      key,
      bindSubsystem(definition as SubsystemDefinition<SubsystemDeps, unknown, unknown, unknown>, deps),
    ]),
  );
  return { ...(bound as Omit<BoundSubsystems, "list">), list: Object.values(bound) as Subsystem[] };
}

/**
 * What joins a turn, in this order: plugins, the owner's MCP servers and commands, jobs' answers, the harness,
 * computer use.
 */
export function turnSources(parts: BoundSubsystems, commands: TurnSource): TurnSource[] {
  return [parts.plugins, parts.mcpServers, commands, parts.jobs, parts.harness, parts.computerUse].map(turnSource);
}

/** A part as one of the turn runner's sources (a plain source is passed through). */
export function turnSource(part: Subsystem | TurnSource): TurnSource {
  if (typeof part === "function") return part;
  return (opening) => part.turn(opening) as ReturnType<TurnSource>;
}
