import type { Caller } from "../capabilities/caller.ts";
import { commandProfileSource } from "../capabilities/command-profiles.ts";
import type { Config } from "../config/schema.ts";
import type { Lanes } from "../gateway/lanes-contract.ts";
import type { SlashAnswer } from "../gateway/slash/command.ts";
import { joinTools } from "../mcp/outbound/join-tools.ts";
import type { MemoryStore } from "../memory/memories-contract.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import type { Observers } from "../observability/observers.ts";
import type { SkillCatalog } from "../skills/catalog.ts";
import type { PluginSkills } from "../skills/sources.ts";
import type { Budget } from "../usage/budget-contract.ts";
import { skillsIndexReusing } from "./prompt-reuse.ts";
import { runTurn, type TurnDeps, type TurnInput, type TurnResult } from "./turn.ts";
import type { TurnAddition, TurnOpening, TurnSource } from "./turn-addition.ts";
import type { TurnEvents } from "./turn-events.ts";

export type CallerTurn = TurnInput & { caller: Caller };

/** Everything a turn is run with: the agent's own deps, and the parts that join a turn (in list order). */
export type TurnRunnerDeps = Omit<
  TurnDeps,
  "routes" | "skillsIndex" | "unknownToolHint" | "extraTools" | "deferTools" | "beforeCommit"
> & {
  /** config.toml as it is now. */
  config: () => Config;
  /** Resolves the routes of a turn (a "@keyring" key may mean a keyring lookup); throws with the fix when none. */
  routes: TurnDeps["routes"];
  lanes: Lanes;
  skills: SkillCatalog;
  /** The plugin skill folders the catalog reads (a change is followed by a rescan). */
  offerPluginSkills(skills: readonly PluginSkills[]): void;
  memory: Pick<MemoryStore, "noteConversation">;
  events: Observers<TurnEvents>;
  /** What each part adds to a turn, asked in this order (plugins, MCP servers, the harness, jobs' answers). */
  sources: readonly TurnSource[];
  /** Seeds the prompt files before the first turn writes to FERMIX_HOME. */
  prepareHome(): void;
  /** The owner's budgets: each model call is checked against them, and the owner's turns carry the 80 % notice. */
  budget?: Budget;
  /** A slash command's answer for this caller (a reply, or the turn to run instead); undefined: not one. */
  slash(text: string, origin: { caller: Caller; conversation: ConversationKey }): Promise<SlashAnswer | undefined>;
};

export interface TurnRunner {
  /**
   * One turn in its conversation's lane; slash commands are answered before any model sees them. Resolves with
   * the reply; the turn_finished observers (compaction, memory review) then run inside the lane.
   */
  ask(input: CallerTurn): Promise<TurnResult>;
  /** A scheduled job's run, in its session's lane, with no observers after it. */
  job(input: CallerTurn): Promise<TurnResult>;
  /** Detached work (/background): outside any lane, unattended, no slash commands. */
  detached(input: CallerTurn): Promise<TurnResult>;
}

export function createTurnRunner(deps: TurnRunnerDeps): TurnRunner {
  const agent = createAgentTurn(deps);
  /** Slash commands first; a job's task is never one, and an /ultra turn's text is its prompt. */
  const runOne = async (input: CallerTurn): Promise<{ result: TurnResult; finished: boolean }> => {
    const answer =
      input.job || input.runProfile || !input.text.trimStart().startsWith("/")
        ? undefined
        : await deps.slash(input.text, { caller: input.caller, conversation: input.key });
    if (typeof answer === "string")
      return { result: { response: answer, provider: "fermix", model: "slash-command", turnId: "" }, finished: false };
    const turn = answer ? { ...input, text: answer.turn.text, runProfile: answer.turn.runProfile } : input;
    return { result: await agent(turn), finished: !input.job };
  };
  return {
    ask: (input) =>
      // /pause, /resume, /confirm and /deny act on the turn this lane is running (a computer-use task waiting for
      // its owner): answered beside it, or they would wait for the very turn that waits for them.
      ACTS_ON_RUNNING_TURN.test(input.text)
        ? runOne(input).then((outcome) => outcome.result)
        : new Promise<TurnResult>((resolve, reject) => {
            void deps.lanes.run(laneOf(input), async () => {
              let outcome: Awaited<ReturnType<typeof runOne>>;
              try {
                outcome = await runOne(input);
              } catch (err) {
                reject(err);
                return;
              }
              resolve(outcome.result);
              if (!outcome.finished) return;
              // The observers (compaction, memory review) start with synchronous reads and writes: one turn of
              // the event loop first lets the caller send the answer it was just given (issue 31: ~0.25 ms a turn).
              await new Promise((next) => setImmediate(next));
              // Still inside the lane: the conversation's next turn waits for this and sees its result.
              await deps.events.emit("turn_finished", { input, result: outcome.result });
            });
          }),
    job: (input) =>
      new Promise<TurnResult>((resolve, reject) => {
        void deps.lanes.run(laneOf(input), () => runOne(input).then((o) => resolve(o.result), reject));
      }),
    detached: (input) => agent(input),
  };
}

/** One agent turn, no slash commands: the parts' additions gathered, then the model and tool loop. */
function createAgentTurn(deps: TurnRunnerDeps): (input: CallerTurn) => Promise<TurnResult> {
  // The skills of enabled plugins, as the latest turn's parts offered them (read in place, at guest trust).
  let offeredSkillsKey: string | undefined;
  return async (input) => {
    // Resolved once per turn; no provider → fail here, before anything is written to FERMIX_HOME.
    const turnRoutes = input.job?.routes ?? deps.routes(input.choice ?? {});
    deps.prepareHome();
    const config = deps.config();
    const opening: TurnOpening = {
      ...{ key: input.key, caller: input.caller, config, job: !!input.job, onNotice: input.onNotice },
      ...(input.newConversation ? { newConversation: true } : {}),
    };
    const additions: TurnAddition[] = [];
    for (const source of deps.sources) {
      const added = await source(opening);
      if (added) additions.push(added);
    }
    // Enabled plugins' skills join the catalog; a change of them (a plugin enabled, a dev_local folder) rescans it.
    const offered: PluginSkills[] = additions.flatMap((a) => a.skills ?? []);
    const key = JSON.stringify(offered);
    if (key !== offeredSkillsKey) {
      deps.offerPluginSkills(offered);
      if (offeredSkillsKey !== undefined) await deps.skills.reload();
      offeredSkillsKey = key;
    }
    const { skills: known } = await deps.skills.load();
    // The "owner" recall scope covers the conversations the owner spoke in. One begun by this turn has no message
    // to find before its first commit: it is noted just before that, so that nothing before the model call needs
    // memory.db (a one-shot ask's request goes out before it opens the database, issue 31).
    const noteConversation = () => deps.memory.noteConversation(input.key, input.caller.trust);
    if (!input.newConversation) noteConversation();
    // The owner hears of a budget at 80 % on the surface they use: before this turn (a job's or a guest's calls
    // crossed it) or after it (this turn did).
    const budgetNotices = () => {
      if (input.caller.trust !== "operator" || input.job || !input.onNotice) return;
      for (const notice of deps.budget?.takeNotices() ?? []) input.onNotice(notice);
    };
    budgetNotices();
    const result = await runTurn(input, {
      ...deps,
      ...(input.newConversation ? { beforeCommit: noteConversation } : {}),
      routes: () => turnRoutes,
      skillsIndex: (surface) =>
        [skillsIndexReusing(known, surface), ...additions.map((a) => a.promptSection?.())].filter(Boolean).join("\n\n"),
      unknownToolHint: async (name) => {
        for (const a of additions) {
          const hint = await a.unknownToolHint?.(name);
          if (hint) return hint;
        }
        return undefined;
      },
      extraTools: joinTools(...additions.map((a) => a.tools)),
      deferTools: config.fermix_core?.tools?.tool_search?.enabled !== false,
      onToolExecution: (e) => void deps.events.emit("tool_executed", e),
    });
    budgetNotices();
    return result;
  };
}

/** The owner's `[sandbox.commands]` as cmd_<name> tools: operator turns only. */
export const commandProfilesSource: TurnSource = async (opening) => {
  const tools = commandProfileSource(opening.config, opening.caller);
  return tools && { tools };
};

const ACTS_ON_RUNNING_TURN = /^\s*\/(pause|resume|confirm|deny)(\s|$)/i;

export function laneOf(input: TurnInput): string {
  return `${input.key.channel}:${input.key.chat}:${input.key.thread ?? ""}`;
}
