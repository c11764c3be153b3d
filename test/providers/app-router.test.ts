/**
 * The router as the app builds it (src/providers/app-router.ts): `afterFirstRequest` runs once, after the process's
 * first model request has been handed to fetch, never before it and never again.
 */
import { describe, expect, test } from "bun:test";
import { createAppRouter } from "../../src/providers/app-router.ts";

const quiet = { info() {}, warn() {}, error() {}, debug() {}, withTag: () => quiet } as never;

describe("the app's router", () => {
  test("afterFirstRequest runs once, right after the first request went to fetch", async () => {
    const seen: string[] = [];
    const fake = (async (input: Parameters<typeof fetch>[0]) => {
      seen.push(`fetch ${String(input)}`);
      return new Response("ok");
    }) as typeof fetch;
    const router = createAppRouter({
      fetch: fake,
      now: Date.now,
      log: quiet,
      onFailover() {},
      afterFirstRequest: () => seen.push("after"),
    });
    const first = router.fetch("http://provider/1");
    expect(seen).toEqual(["fetch http://provider/1", "after"]);
    await first;
    await router.fetch("http://provider/2");
    expect(seen).toEqual(["fetch http://provider/1", "after", "fetch http://provider/2"]);
  });

  test("without it, fetch is the one handed in", () => {
    const fake = (async () => new Response("ok")) as unknown as typeof fetch;
    expect(createAppRouter({ fetch: fake, now: Date.now, log: quiet, onFailover() {} }).fetch).toBe(fake);
  });
});
