import { describe, expect, test } from "bun:test";
import { createSlackApi, MAX_ANSWER_BYTES } from "../../../src/channels/slack/web-api.ts";
import { startFakeSlack } from "../../fake/slack-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { recordingLog } from "../telegram/_support.ts";

/*
 * The Web API client's answer cap, against the fake: the cap is set small so an ordinary answer is over it, and
 * the call fails with Slack's method named instead of the SDK reading and parsing the whole body.
 */

const defer = cleanupAfterEach();

describe("the Slack Web API's answer cap", () => {
  test("an answer over the cap is refused with a clear error; under it, the same call works", async () => {
    const fake = await startFakeSlack();
    defer(() => fake.close());
    const log = recordingLog();
    const small = await createSlackApi({ baseUrl: fake.apiUrl, botToken: fake.botToken, log, maxAnswerBytes: 64 });
    await expect(small.call("auth.test")).rejects.toMatchObject({
      code: "slack_api_error",
      message: "Slack's answer to auth.test is larger than 64 bytes; refusing it",
      data: { method: "auth.test", error: "answer_too_large", kind: "remote_rejected" },
    });
    const api = await createSlackApi({ baseUrl: fake.apiUrl, botToken: fake.botToken, log });
    expect(await api.call("auth.test")).toMatchObject({ ok: true });
    expect(MAX_ANSWER_BYTES).toBe(4 * 1024 * 1024);
  });
});
