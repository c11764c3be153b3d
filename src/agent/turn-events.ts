import type { Caller } from "../capabilities/caller.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import type { FailoverInfo } from "../providers/router.ts";
import type { ToolExecution } from "./tool-loop.ts";
import type { TurnInput, TurnResult } from "./turn.ts";

/** What the agent tells its observers (see observability/observers.ts): the kinds and their payloads. */
export type TurnEvents = {
  /** A conversation's turn answered; its observers run inside the conversation's lane (compaction, memory review). */
  turn_finished: { input: TurnInput & { caller: Caller }; result: TurnResult };
  /** A model call moved from one provider to the next. */
  failover: FailoverInfo;
  tool_executed: ToolExecution & { conversation: ConversationKey };
};
