/** A scheduled run whose answer stopped at the model's output limit says so in its record and its delivery. */
import { describe, expect, test } from "bun:test";
import { TRUNCATION_MARKER } from "../../src/gateway/truncation-marker.ts";
import { createJobRunner, deliveryMessage } from "../../src/jobs/job-runner.ts";
import type { Route } from "../../src/providers/routes.ts";
import { draft, MINUTE, operatorCli, storeWithClock, T0 } from "./_fixture.ts";

const route = { descriptor: { id: "openai" }, model: "gpt-test" } as unknown as Route;

async function runOnce(truncated: boolean) {
  const s = storeWithClock();
  const delivered: string[] = [];
  const runner = createJobRunner({
    store: s.store,
    turn: async () => ({
      response: "Top stories: one, two and",
      provider: "openai",
      model: "gpt-test",
      turnId: "turn_1",
      ...(truncated ? { truncated: true as const } : {}),
    }),
    routes: () => [route],
    skill: async () => undefined,
    deliver: async (_job, _run, message) => {
      delivered.push(message);
      return { status: "sent" };
    },
    now: s.now,
    log: { info() {}, warn() {} },
    sleep: () => Promise.resolve(),
  });
  const created = s.store.create(
    draft({ deliveryMode: "channel", deliveryTarget: { platform: "telegram", chat_id: "42" } }),
    {
      ...operatorCli,
      nextRunAt: T0 + MINUTE,
    },
  );
  const claim = s.store.claim({ jobId: created.id, trigger: "schedule", nextRunAt: T0 + MINUTE });
  if (!claim.ok) throw new Error("claim failed");
  await runner.execute(claim.job, claim.run);
  return { run: s.store.getRun(claim.run.id)!, job: claim.job, delivered };
}

describe("a truncated job run", () => {
  test("the run record and the delivered message end with the marker", async () => {
    const { run, job, delivered } = await runOnce(true);
    expect(run).toMatchObject({ status: "ok", finalResponse: `Top stories: one, two and${TRUNCATION_MARKER}` });
    expect(delivered).toEqual([deliveryMessage(job, run)]);
    expect(delivered[0]).toEndWith(TRUNCATION_MARKER);
  });

  test("a complete run carries no marker", async () => {
    const { run } = await runOnce(false);
    expect(run.finalResponse).toBe("Top stories: one, two and");
  });
});
