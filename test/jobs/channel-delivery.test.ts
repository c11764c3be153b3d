import { describe, expect, test } from "bun:test";
import { FermixError } from "../../src/error.ts";
import { deliverToChannel } from "../../src/jobs/channel-delivery.ts";
import { createJobService } from "../../src/jobs/job-service.ts";
import type { Job, JobDraft } from "../../src/jobs/job-types.ts";
import type { Route } from "../../src/providers/routes.ts";
import { createTestChannel, type TestChannel } from "../fixture/test-channel.ts";
import { draft, MINUTE, storeWithClock, T0 } from "./_fixture.ts";

const route = { descriptor: { id: "openai" }, model: "gpt-test" } as unknown as Route;
const quiet = { info() {}, warn() {} };
const fromTelegram = { trust: "operator" as const, createdIn: { channel: "telegram", chat: "4242" } };

/** Runs one job through the service, with `channel` as the daemon's running telegram channel (or none). */
async function runJob(over: Partial<JobDraft>, channel: TestChannel | undefined, createdIn = fromTelegram) {
  const s = storeWithClock();
  const service = createJobService({
    db: s.db,
    role: "oneshot",
    config: () => ({}),
    now: s.now,
    log: quiet,
    turn: async () => ({ response: "Your morning digest.", provider: "openai", model: "gpt-test", turnId: "t" }),
    routes: () => [route],
    skill: async () => undefined,
    channel: (platform) => (platform === "telegram" ? channel?.adapter : undefined),
  });
  const job = s.store.create(draft(over), { ...createdIn, nextRunAt: T0 + MINUTE });
  const started = service.runNow(job.id);
  if (!started.ok) throw new Error("not started");
  await started.done;
  return s.store.runs(job.id)[0]!;
}

describe("job delivery to chat channels", () => {
  test("origin delivery sends the answer back to the chat the job was made in", async () => {
    const channel = createTestChannel({ name: "telegram" });
    const run = await runJob(
      { deliveryMode: "origin", deliveryTarget: { platform: "telegram", chat_id: "4242" } },
      channel,
    );
    expect(run.deliveryStatus).toBe("sent");
    expect(channel.shown("4242").map((m) => m.markdown)).toEqual(["Your morning digest."]);
  });

  test("channel delivery sends to its target, thread included", async () => {
    const channel = createTestChannel({ name: "telegram" });
    const run = await runJob(
      { deliveryMode: "channel", deliveryTarget: { platform: "telegram", chat_id: "-100200", thread: "7" } },
      channel,
    );
    expect(run.deliveryStatus).toBe("sent");
    const sent = channel.events.find((e) => e.kind === "send");
    expect(sent).toMatchObject({
      target: { chatId: "-100200", thread: "7" },
      text: { markdown: "Your morning digest." },
    });
  });

  test("no running channel: the delivery fails on the run with what to do", async () => {
    const run = await runJob(
      { deliveryMode: "channel", deliveryTarget: { platform: "telegram", chat_id: "42" } },
      undefined,
    );
    expect(run.deliveryStatus).toBe("failed");
    expect(run.deliveryError).toBe(
      "no telegram channel is running in this fermix; configure [fermix_channels.telegram] or change the job's delivery with update_job",
    );
  });

  test("a send the platform refuses fails the delivery with its reason, untried again", async () => {
    let sends = 0;
    const channel = createTestChannel({
      name: "telegram",
      hooks: {
        send: () => {
          sends++;
          throw new FermixError("telegram_rejected", "Bad Request: chat not found");
        },
      },
    });
    const run = await runJob(
      { deliveryMode: "channel", deliveryTarget: { platform: "telegram", chat_id: "9" } },
      channel,
    );
    expect(run.deliveryStatus).toBe("failed");
    expect(run.deliveryError).toBe("could not send to telegram:9: Bad Request: chat not found");
    expect(sends).toBe(1);
  });

  test("a CLI session's origin answer still waits for its next ask", async () => {
    const channel = createTestChannel({ name: "telegram" });
    const run = await runJob({ deliveryMode: "origin" }, channel, {
      trust: "operator",
      createdIn: { channel: "cli", chat: "s1" },
    });
    expect(run.deliveryStatus).toBe("pending");
    expect(channel.events).toEqual([]);
  });

  test("a rate-limited send is tried again after the wait the platform asks for, at most three times", async () => {
    const waits: number[] = [];
    let sends = 0;
    const limited = new FermixError("rate_limited", "Too Many Requests: retry after 2", { retry_after: 2 });
    const job = { deliveryMode: "channel", deliveryTarget: { platform: "telegram", chat_id: "1" } } as Job;
    const flaky = {
      send: async () => {
        if (++sends < 3) throw limited;
        return [{ id: "1" }];
      },
    };
    const sleep = async (ms: number) => void waits.push(ms);
    expect(await deliverToChannel(job, "hi", { channel: () => flaky, sleep })).toEqual({ status: "sent" });
    expect(waits).toEqual([2000, 2000]);

    const always = { send: async () => Promise.reject(limited) };
    const failed = await deliverToChannel(job, "hi", { channel: () => always, sleep });
    expect(failed).toEqual({
      status: "failed",
      error: "could not send to telegram:1: Too Many Requests: retry after 2",
    });
  });
});
