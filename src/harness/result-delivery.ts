import { type ChannelDeliveryDeps, deliverToChannel, deliverToTarget } from "../jobs/channel-delivery.ts";
import type { JobService } from "../jobs/job-service-contract.ts";
import type { ConversationKey } from "../memory/messages-contract.ts";
import type { BackoffPolicy } from "../net/backoff.ts";
import { type AttemptDelivery, createDeliveryRetry, type DeliveryRetry, type Sleep } from "./delivery-retry.ts";
import type { HarnessStore } from "./harness-store-contract.ts";
import { resultMessage } from "./result-message.ts";

export type ResultDeliveryDeps = {
  store: HarnessStore;
  /** The running chat channel for a platform, where results and milestones go. */
  channel?: ChannelDeliveryDeps["channel"];
  /** Jobs, for a run a scheduled job asked for: its result follows the job's delivery. */
  jobs?: () => Promise<JobService>;
  now: () => number;
  log: { warn(msg: string): void };
  /** The waits between attempts (and a platform's rate-limit waits); tests pass one that returns at once. */
  sleep?: Sleep;
  /** Tries in all and the back-off between them (delivery-retry.ts has the defaults). */
  retry?: {
    attempts?: number | (() => number);
    maxAgeMs?: number | (() => number);
    backoff?: BackoffPolicy;
    random?: () => number;
  };
};

export type ResultDelivery = DeliveryRetry & {
  sendToOrigin(origin: ConversationKey, message: string): ReturnType<typeof deliverToTarget>;
};

/** Where a run's result and milestones go: the chat it came from, a CLI session's next turn, or a job's target. */
export function createResultDelivery(deps: ResultDeliveryDeps): ResultDelivery {
  // The platform's own short retries (a 429's retry_after) wait through the same injected sleep.
  const stopWaits = new AbortController();
  const sleep = deps.sleep;
  const channelDeps: ChannelDeliveryDeps = {
    channel: deps.channel,
    ...(sleep ? { sleep: (ms: number) => sleep(ms, stopWaits.signal) } : {}),
  };

  const sendToOrigin = (origin: ConversationKey, message: string) =>
    deliverToTarget(
      { platform: origin.channel, chat_id: origin.chat, ...(origin.thread ? { thread: origin.thread } : {}) },
      message,
      channelDeps,
      "read the result with get_coding_run",
    );

  /** One try. A chat gets it now; a CLI session sees it before its next ask; a job's run follows the job's delivery. */
  const attempt: AttemptDelivery = async (run) => {
    const message = resultMessage(run);
    if (run.jobId && deps.jobs) {
      const job = (await deps.jobs()).store.get(run.jobId);
      if (!job || job.deliveryMode === "none" || job.deliveryMode === "local") return { status: "stored" };
      return deliverToChannel(job, message, channelDeps);
    }
    if (run.origin.channel === "cli") return { status: "pending" };
    return sendToOrigin(run.origin, message);
  };

  const retry = createDeliveryRetry({
    store: deps.store,
    attempt,
    now: deps.now,
    log: deps.log,
    sleep: deps.sleep,
    ...deps.retry,
  });
  return {
    ...retry,
    async stop() {
      stopWaits.abort();
      await retry.stop();
    },
    sendToOrigin,
  };
}
