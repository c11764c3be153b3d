import { describe, expect, test } from "bun:test";
import { profileSpec } from "../../src/auth/profiles.ts";
import { refreshGrant, TOKEN_ANSWER_MAX_BYTES } from "../../src/auth/token-endpoint.ts";
import { startFakeProviderOAuth } from "../fake/provider-oauth.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

/*
 * The chat providers' token endpoint against the fake authorization server: an answer past the cap is refused
 * unread and not retried; a failing endpoint is retried by the shared backoff rule (the waits recorded).
 */

const defer = cleanupAfterEach();

function setup() {
  const fake = startFakeProviderOAuth();
  defer(() => fake.close());
  const spec = profileSpec("anthropic_oauth", { FERMIX_TEST_OAUTH_BASE_URL: fake.base });
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  return { fake, spec, sleeps, sleep };
}

describe("the token endpoint", () => {
  test("an answer over the cap is refused with the limit named, once, without a retry", async () => {
    const { fake, spec, sleeps, sleep } = setup();
    fake.padNext(TOKEN_ANSWER_MAX_BYTES + 1024);
    const refused = refreshGrant(spec, fake.seedRefreshToken("anthropic"), { sleep });
    await expect(refused).rejects.toMatchObject({ code: "auth_token_unreachable" });
    await expect(refused).rejects.toThrow(`is larger than ${TOKEN_ANSWER_MAX_BYTES} bytes; refusing it`);
    expect(fake.tokenCalls).toHaveLength(1);
    expect(sleeps).toEqual([]);
    const fine = await refreshGrant(spec, fake.seedRefreshToken("anthropic"), { sleep });
    expect(fine.access_token).toStartWith("sk-ant-oat01-fake-");
  });

  test("a failing endpoint is retried after growing, jittered waits", async () => {
    const { fake, spec, sleeps, sleep } = setup();
    fake.failNext(503, 2);
    const answer = await refreshGrant(spec, fake.seedRefreshToken("anthropic"), { sleep });
    expect(answer.access_token).toBeTruthy();
    expect(fake.tokenCalls.map((c) => c.status)).toEqual([503, 503, 200]);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeWithin(280, 351);
    expect(sleeps[1]).toBeWithin(560, 701);
  });
});
