import { describe, expect, test } from "bun:test";
import { type RoutedEvent, routeModelCall } from "../../../src/providers/router.ts";
import { resolveRoutes } from "../../../src/providers/routes.ts";
import type { ToolSpec } from "../../../src/providers/types.ts";
import { openaiResponsesWire as wire } from "../../../src/providers/wires/openai-responses.ts";
import { WIRES } from "../../../src/providers/wires/registry.ts";
import { grokRejectsEffort, withoutSlashEnums } from "../../../src/providers/xai-quirks.ts";
import { startFakeOpenAIResponses } from "../../fake/llm.ts";
import { drain, fakesClosedAfterEach, request, targetFor, user } from "./harness.ts";

const KEY = "xai-quirks-test-key-0123456789abcdef";
const started = fakesClosedAfterEach();

const PICK: ToolSpec = {
  name: "pick_model",
  description: "Choose a model",
  parameters: {
    type: "object",
    properties: {
      model: { type: "string", enum: ["a/b", "c"] },
      only_slashes: { type: "string", enum: ["x/y", "z/w"] },
      tags: { type: "array", items: { type: "string", enum: ["ok", "no/pe"] } },
      // A property that happens to be called "enum" is a schema, not the keyword.
      enum: { type: "string", description: "not the keyword" },
    },
    required: ["model"],
  },
};

async function sentTools(provider: string): Promise<any> {
  const fake = await started(startFakeOpenAIResponses({ apiKey: KEY }));
  const target = targetFor(provider, fake.baseUrl, KEY);
  const out = await drain(wire, { target, request: request("grok-3-mini", { tools: [PICK] }) });
  expect(out.error).toBeUndefined();
  return fake.requests[0]!.body.tools[0].parameters;
}

/** A whole turn's first call, from a config block that sets reasoning_effort, as the app resolves and routes it. */
async function effortSent(provider: string, model: string): Promise<unknown> {
  const fake = await started(startFakeOpenAIResponses({ apiKey: KEY }));
  const block = { base_url: fake.baseUrl, api_key: KEY, default_model: model, reasoning_effort: "high" };
  const config = { fermix_core: { providers: { [provider]: block } } } as any;
  const routes = resolveRoutes(config, {}, { env: {}, secretsDir: "/nonexistent" });
  const events: RoutedEvent[] = [];
  const call = { request: { system: "You are terse.", messages: [user("ping")] }, firstCall: true };
  for await (const e of routeModelCall(routes, call, { fetch, wires: WIRES })) events.push(e);
  expect(events.at(-1)?.type).toBe("done");
  return fake.requests[0]!.body.reasoning;
}

describe("xai quirks on the Responses wire", () => {
  test("slash-containing enum values are stripped from tool schemas sent to xai, at every depth", async () => {
    const params = await sentTools("xai");
    expect(params.properties.model.enum).toEqual(["c"]);
    // Nothing left: the keyword goes, the type stays.
    expect(params.properties.only_slashes).toEqual({ type: "string" });
    expect(params.properties.tags.items.enum).toEqual(["ok"]);
    expect(params.properties.enum).toEqual({ type: "string", description: "not the keyword" });
    // The shared spec is untouched for the next route.
    expect((PICK.parameters as any).properties.model.enum).toEqual(["a/b", "c"]);
  });

  test("openai gets the tool schema unchanged", async () => {
    expect(await sentTools("openai")).toEqual(PICK.parameters);
  });

  test.each(["grok-4", "grok-code-fast-1"])(
    "%s refuses an effort: config's reasoning_effort never reaches the request",
    async (model) => {
      expect(await effortSent("xai", model)).toBeUndefined();
    },
  );

  test("grok-3-mini accepts an effort and still gets it, with no summary (xAI does not document one)", async () => {
    expect(await effortSent("xai", "grok-3-mini")).toEqual({ effort: "high" });
  });

  test("the rejecting table is xai's own: openai's models are unaffected", async () => {
    expect(await effortSent("openai", "gpt-5-mini")).toEqual({ effort: "high", summary: "auto" });
  });
});

describe("the xai quirk tables", () => {
  test.each([
    ["grok-4", true],
    ["grok-4-0709", true],
    ["grok-4-latest", true],
    ["grok-4-fast-reasoning", true],
    ["grok-4-1-fast-non-reasoning", true],
    ["grok-4.20-0309-reasoning", true],
    ["grok-code-fast-1", true],
    ["grok-3-mini", false],
    ["grok-3-mini-fast", false],
    ["grok-4.3", false],
  ] as const)("%s rejects an effort: %p", (model, rejects) => {
    expect(grokRejectsEffort(model)).toBe(rejects);
  });

  test("non-string enum values and schemas without enums pass through", () => {
    const schema = { anyOf: [{ enum: [1, null, "a/b", "ok"] }, { type: "number" }] };
    expect(withoutSlashEnums(schema)).toEqual({ anyOf: [{ enum: [1, null, "ok"] }, { type: "number" }] });
  });
});
