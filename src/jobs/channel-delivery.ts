import type { ChannelAdapter } from "../channels/channel.ts";
import { type Backoff, createBackoff } from "../net/backoff.ts";
import type { Delivery } from "./job-runner.ts";
import type { DeliveryTarget, Job } from "./job-types.ts";

/** What delivery needs of a running channel: sending a message to a chat (the adapter renders and splits it). */
export type ChannelSender = Pick<ChannelAdapter, "send">;

export type ChannelDeliveryDeps = {
  /** The running channel for a platform, or undefined when none runs in this process. */
  channel?: (platform: string) => ChannelSender | undefined;
  sleep?: (ms: number) => Promise<void>;
};

/** A rate-limited or cut-off send is tried this many times in all, waiting as the platform asks (capped). */
export const DELIVERY_ATTEMPTS = 3;
const RETRY_CAP_MS = 30_000;

/**
 * Where a finished run's message goes. `origin` goes back to the conversation that created the job: a CLI
 * session's answer waits there and is shown before the next `fermix ask` in it (store.pendingDeliveries); a chat
 * channel's is sent to that chat. `channel` sends to its target (`telegram:<chat_id>`). A platform with no
 * running channel, or a send that fails, is a failed delivery recorded on the run with the reason.
 */
export async function deliverToChannel(job: Job, message: string, deps: ChannelDeliveryDeps): Promise<Delivery> {
  if (job.deliveryMode === "origin" && job.createdIn.channel === "cli") return { status: "pending" };
  const target = targetOf(job);
  if (!target) {
    return { status: "failed", error: "the job has no chat to deliver to; give it a delivery_target with update_job" };
  }
  return deliverToTarget(target, message, deps, "change the job's delivery with update_job");
}

/**
 * Sends `message` to one chat, trying a rate-limited or cut-off send again as the platform asks; shared by job
 * results and coding-harness results. `fix` finishes the sentence when no channel runs for the platform.
 */
export async function deliverToTarget(
  target: DeliveryTarget,
  message: string,
  deps: ChannelDeliveryDeps,
  fix: string,
): Promise<Delivery> {
  const where = `${target.platform}:${target.chat_id}${target.thread ? `:${target.thread}` : ""}`;
  const channel = deps.channel?.(target.platform);
  if (!channel) {
    return {
      status: "failed",
      error: `no ${target.platform} channel is running in this fermix; configure [fermix_channels.${target.platform}] or ${fix}`,
    };
  }
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const chat = { chatId: target.chat_id, ...(target.thread ? { thread: target.thread } : {}) };
  const cut = createBackoff({ initialMs: 1000, maxMs: RETRY_CAP_MS });
  for (let attempt = 1; ; attempt++) {
    try {
      await channel.send(chat, { markdown: message });
      return { status: "sent" };
    } catch (err) {
      const wait = retryWait(err, cut);
      if (wait === undefined || attempt >= DELIVERY_ATTEMPTS) {
        return { status: "failed", error: `could not send to ${where}: ${(err as Error)?.message ?? String(err)}` };
      }
      await sleep(wait);
    }
  }
}

/** `origin` resolved at creation (older jobs: the creating conversation); `channel` its target. */
function targetOf(job: Job): DeliveryTarget | undefined {
  if (job.deliveryTarget) return job.deliveryTarget;
  if (job.deliveryMode !== "origin" || !job.createdIn.chat) return undefined;
  const { channel, chat, thread } = job.createdIn;
  return { platform: channel, chat_id: chat, ...(thread ? { thread } : {}) };
}

/**
 * How long to wait before trying again, or undefined when trying again cannot help (a chat that does not exist,
 * a bot that was blocked). A rate limit says how long; a cut connection gets a short growing wait (the shared
 * backoff rule, from 1 s).
 */
function retryWait(err: unknown, cut: Backoff): number | undefined {
  const e = err as { code?: unknown; data?: Record<string, unknown> } | undefined;
  const data = e?.data ?? {};
  if (typeof data.retry_after_ms === "number") return Math.min(data.retry_after_ms, RETRY_CAP_MS);
  const seconds = data.retryAfter ?? data.retry_after;
  if (typeof seconds === "number") return Math.min(seconds * 1000, RETRY_CAP_MS);
  if (data.transient === true) return cut.next();
  const code = typeof e?.code === "string" ? e.code : "";
  if (/rate_limit|transport|timeout|network|unavailable/.test(code)) return cut.next();
  return undefined;
}
