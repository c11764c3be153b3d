import { type ChannelDeliveryDeps, deliverToChannel, deliverToTarget } from "../jobs/channel-delivery.ts";
import type { JobService } from "../jobs/job-service-contract.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import type { HarnessStore } from "./harness-store-contract.ts";
import type { HarnessRun } from "./harness-types.ts";
import { resultMessage } from "./result-message.ts";

export type ResultDeliveryDeps = {
  store: HarnessStore;
  /** The running chat channel for a platform, where results and milestones go. */
  channel?: ChannelDeliveryDeps["channel"];
  /** Jobs, for a run a scheduled job asked for: its result follows the job's delivery. */
  jobs?: () => Promise<JobService>;
  log: { warn(msg: string): void };
};

export type ResultDelivery = {
  deliver(run: HarnessRun): Promise<void>;
  sendToOrigin(origin: ConversationKey, message: string): ReturnType<typeof deliverToTarget>;
};

/** Where a run's result and milestones go: the chat it came from, a CLI session's next turn, or a job's target. */
export function createResultDelivery(deps: ResultDeliveryDeps): ResultDelivery {
  const { store } = deps;

  const sendToOrigin = (origin: ConversationKey, message: string) =>
    deliverToTarget(
      { platform: origin.channel, chat_id: origin.chat, ...(origin.thread ? { thread: origin.thread } : {}) },
      message,
      { channel: deps.channel },
      "read the result with get_coding_run",
    );

  /** A chat gets it now; a CLI session sees it before its next ask; a job's run follows the job's delivery. */
  const deliver = async (run: HarnessRun): Promise<void> => {
    const message = resultMessage(run);
    try {
      if (run.jobId && deps.jobs) {
        const job = (await deps.jobs()).store.get(run.jobId);
        if (!job || job.deliveryMode === "none" || job.deliveryMode === "local") {
          store.delivered(run.id, "stored");
          return;
        }
        const d = await deliverToChannel(job, message, { channel: deps.channel });
        store.delivered(run.id, d.status, d.error);
        return;
      }
      if (run.origin.channel === "cli") {
        store.delivered(run.id, "pending");
        return;
      }
      const d = await sendToOrigin(run.origin, message);
      store.delivered(run.id, d.status, d.error);
      if (d.error) deps.log.warn(`coding run ${run.id}: ${d.error}`);
    } catch (err) {
      store.delivered(run.id, "failed", (err as Error).message);
    }
  };

  return { deliver, sendToOrigin };
}
