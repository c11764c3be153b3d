// The contract of a part of the daemon that config.toml may switch on (jobs, the chat channels, the setup page,
// plugins, outbound MCP, trace export, memory review, the coding harness, the browser). A leaf that imports
// nothing, so that any folder, the base layer's included, can implement one; the ordered list is src/subsystems.ts.

/** What `fermix status`, `/v1/health`, doctor and the setup page say of a part. */
export type SubsystemState =
  /** config.toml does not want it, and nothing loaded it. */
  | "off"
  /** Wanted or usable, but nothing has needed its code yet (an idle daemon loads it on first use). */
  | "idle"
  | "starting"
  | "running"
  /** Running, with something the owner should fix (the detail says what). */
  | "degraded"
  /** Its start failed; the detail says why. The daemon goes on without it. */
  | "failed";

export type SubsystemStatus = { name: string; state: SubsystemState; detail?: string };

/**
 * How a part is declared, in its own feature folder: `Deps` is what it needs from the composition root (declared
 * by the part itself, so it names only what it uses); `Api` is what its code hands back once loaded; `Turn` and
 * `Added` are what the turn runner asks of it, for the parts that add something to a turn.
 *
 * @example
 * export const jobsSubsystem = defineSubsystem({
 *   name: "jobs",
 *   wanted: () => true,
 *   load: async (deps: JobsDeps) => (await import("./job-service.ts")).createJobService(…),
 *   start: (service) => service.start(),
 *   stop: (service) => service.stop(),
 * });
 */
export interface SubsystemDefinition<Deps, Api, Turn = never, Added = never> {
  readonly name: string;
  /** Whether config.toml, as it is now, wants this part: answered from the config alone, without its code. */
  wanted(deps: Deps): boolean;
  /**
   * Loads the part's code (a dynamic import) and builds it; called once, on first use or at the daemon's start.
   * A part whose code is already small may build synchronously (then `Subsystem.sync()` hands it out at once).
   */
  load(deps: Deps): Api | Promise<Api>;
  /** The daemon's boot, once loaded: a clock, servers, listeners. Absent: loading is all there is to starting. */
  start?(api: Api, deps: Deps): Promise<void>;
  /**
   * Whether the daemon's boot waits for `start` before it says it is listening (the job clock marks a killed
   * predecessor's runs first); otherwise it starts in the background, so nothing that can hang stands in front.
   */
  awaitStart?: boolean;
  /** Says that start failed, in the part's own words (absent: the daemon logs "<name> did not start: …"). */
  startFailed?(err: Error, deps: Deps): void;
  /** Stops what start or use began; asked only of a loaded part. */
  stop?(api: Api): Promise<void>;
  /** The part's own view of its state, once loaded (absent: "running"). */
  status?(api: Api): Omit<SubsystemStatus, "name">;
  /** What the part adds to one turn; asked only when the part is loaded or wanted. */
  turn?(api: Api, turn: Turn, deps: Deps): Promise<Added | undefined>;
  /** Whether this turn asks the part at all (default: loaded or wanted). */
  joinsTurn?(turn: Turn, deps: Deps, loaded: boolean): boolean;
  /** A part that failed to load or to join a turn: said here, and the turn goes on without it (absent: it fails). */
  turnError?(err: Error, deps: Deps): void;
}

export function defineSubsystem<Deps, Api, Turn = never, Added = never>(
  definition: SubsystemDefinition<Deps, Api, Turn, Added>,
): SubsystemDefinition<Deps, Api, Turn, Added> {
  return definition;
}

/** A declared part bound to the composition root's deps: loaded at most once, its state kept as data. */
export interface Subsystem<Api = unknown, Turn = unknown, Added = unknown> {
  readonly name: string;
  wanted(): boolean;
  /** Whether its code has been asked for (a part never loaded is never stopped). */
  loaded(): boolean;
  /** The part, loading it on first call; later calls share the same load. */
  api(): Promise<Api>;
  /** The part once it has loaded, synchronously; undefined before. */
  current(): Api | undefined;
  /** The part now, for one whose load is synchronous (the browser session a tool asks for); throws otherwise. */
  sync(): Api;
  start(): Promise<void>;
  readonly awaitStart: boolean;
  stop(): Promise<void>;
  status(): SubsystemStatus;
  /** What it adds to this turn; undefined when it does not join it. A failure is the caller's to report. */
  turn(turn: Turn): Promise<Added | undefined>;
  /**
   * An error that came from this part and nothing handled (the daemon's fault policy, src/daemon/fault-policy.ts),
   * in words already fit to show (redacted). The part keeps running, "degraded" with the count and the last one,
   * until the daemon restarts: an unexpected error is news for the owner even once the part seems fine again.
   */
  fault(detail: string): void;
}

export function bindSubsystem<Deps, Api, Turn, Added>(
  definition: SubsystemDefinition<Deps, Api, Turn, Added>,
  deps: Deps,
): Subsystem<Api, Turn, Added> {
  let loading: Promise<Api> | undefined;
  let ready: Api | undefined;
  let failure: string | undefined;
  let starting = false;
  let faults = 0;
  let lastFault = "";
  const api = (): Promise<Api> => {
    if (loading) return loading;
    const made = definition.load(deps);
    if (made instanceof Promise) {
      loading = made.then((value) => {
        ready = value;
        return value;
      });
    } else {
      ready = made;
      loading = Promise.resolve(made);
    }
    return loading;
  };
  const wanted = () => definition.wanted(deps);
  return {
    name: definition.name,
    awaitStart: definition.awaitStart === true,
    wanted,
    loaded: () => loading !== undefined,
    api,
    current: () => ready,
    sync() {
      void api();
      if (ready === undefined) throw new Error(`the ${definition.name} part does not load synchronously`);
      return ready;
    },
    async start() {
      // A part with nothing to run at boot loads on first use, never at the start (an idle daemon stays small).
      if (!definition.start || !wanted()) return;
      starting = true;
      try {
        const value = await api();
        await definition.start?.(value, deps);
      } catch (err) {
        failure = (err as Error).message;
        if (!definition.startFailed) throw err;
        definition.startFailed(err as Error, deps);
      } finally {
        starting = false;
      }
    },
    async stop() {
      if (!loading) return;
      // A part whose load failed has nothing to stop.
      const value = await loading.catch(() => undefined);
      if (value !== undefined) await definition.stop?.(value);
    },
    status() {
      const name = definition.name;
      if (failure) return { name, state: "failed", detail: failure };
      const own: Omit<SubsystemStatus, "name"> =
        ready !== undefined
          ? (definition.status?.(ready) ?? { state: "running" })
          : { state: starting || loading ? "starting" : wanted() ? "idle" : "off" };
      if (!faults) return { name, ...own };
      // A fault adds to what the part says of itself rather than hiding it (a degraded channel stays named).
      const said = `${faults} unexpected error${faults === 1 ? "" : "s"} since the daemon started, the last: ${lastFault}`;
      return { name, state: "degraded", detail: own.detail ? `${own.detail}; ${said}` : said };
    },
    fault(detail) {
      faults += 1;
      lastFault = detail;
    },
    async turn(turn) {
      const join = definition.turn;
      if (!join) return undefined;
      const loaded = loading !== undefined;
      if (!(definition.joinsTurn ? definition.joinsTurn(turn, deps, loaded) : loaded || wanted())) return undefined;
      try {
        return await join(await api(), turn, deps);
      } catch (err) {
        if (!definition.turnError) throw err;
        definition.turnError(err as Error, deps);
        return undefined;
      }
    },
  };
}

/**
 * The daemon's boot: every part in list order; the ones that ask for it are awaited, the rest start in the
 * background. A part that fails is reported (its status says why) and the rest go on.
 */
export async function startSubsystems(
  parts: readonly Subsystem[],
  onError: (part: Subsystem, err: Error) => void,
): Promise<void> {
  for (const part of parts) {
    const started = part.start().catch((err: unknown) => onError(part, err as Error));
    if (part.awaitStart) await started;
  }
}

/** Stops in reverse list order, only what was loaded; one part's failure does not keep the next from stopping. */
export async function stopSubsystems(
  parts: readonly Subsystem[],
  onError: (part: Subsystem, err: Error) => void,
): Promise<void> {
  for (const part of [...parts].reverse()) {
    await part.stop().catch((err: unknown) => onError(part, err as Error));
  }
}
