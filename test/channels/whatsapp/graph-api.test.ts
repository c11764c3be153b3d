import { describe, expect, test } from "bun:test";
import { createGraphApi, DEFAULT_GRAPH_VERSION, MAX_ANSWER_BYTES } from "../../../src/channels/whatsapp/graph-api.ts";
import { startFakeWhatsApp } from "../../fake/whatsapp-graph-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";

/*
 * Graph's answers are read only up to a cap (set small here, so a phone number's details are over it): past it
 * the call fails naming the limit instead of parsing a cut body.
 */

const defer = cleanupAfterEach();

describe("the Graph answer cap", () => {
  test("an answer over the cap is refused with the limit named; under it, the same call works", async () => {
    const fake = await startFakeWhatsApp();
    defer(() => fake.close());
    const deps = { baseUrl: fake.baseUrl, version: DEFAULT_GRAPH_VERSION, token: fake.token };
    const small = createGraphApi({ ...deps, maxAnswerBytes: 20 });
    await expect(small.get(fake.phoneNumberId)).rejects.toMatchObject({
      code: "whatsapp_api_error",
      message: `WhatsApp ${fake.phoneNumberId}: the answer is larger than 20 bytes; refusing it`,
      data: { status: 200, description: "answer too large", transient: false },
    });
    expect(await createGraphApi(deps).get(fake.phoneNumberId)).toMatchObject({ id: fake.phoneNumberId });
    expect(MAX_ANSWER_BYTES).toBe(4 * 1024 * 1024);
  });
});
