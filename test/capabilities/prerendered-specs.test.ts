/**
 * The built-ins' wire schemas are pre-rendered (src/capabilities/prerendered-specs.json, rewritten by build.ts): each
 * must be exactly what converting the tool's valibot parameters gives, byte for byte, so a stale file fails here;
 * and only the very tool objects they were rendered from may use them.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { fileRead } from "../../src/capabilities/builtins/file-read.ts";
import { react } from "../../src/capabilities/builtins/react.ts";
import type { ChannelReply } from "../../src/capabilities/channel-reply.ts";
import { PRERENDERED_SPECS_FILE, renderSpecsFile } from "../../src/capabilities/prerender-step.ts";
import { prerenderedSpec, prerenderedTools } from "../../src/capabilities/prerendered-specs.ts";
import { createRegistry } from "../../src/capabilities/registry.ts";
import type { AnyTool } from "../../src/capabilities/tool.ts";
import { convertParameters, toolSpec, toolSpecSize } from "../../src/capabilities/tool-spec.ts";
import { builtSchema } from "../../src/valibot-lazy.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const ROOT = join(import.meta.dir, "../..");
const KEY = "sk-test-prerendered-0123456789abcdef";
const defer = cleanupAfterEach();
const REGENERATE = "stale: run `bun src/capabilities/prerender-step.ts` (build.ts does it too) and commit the file";

describe("pre-rendered tool schemas", () => {
  test("the committed file is what converting every built-in gives now", () => {
    const committed = readFileSync(join(ROOT, PRERENDERED_SPECS_FILE), "utf8");
    expect(committed === renderSpecsFile(), REGENERATE).toBe(true);
  });

  test("every built-in's spec is its conversion, in the same bytes, and is measured from it", () => {
    const tools = prerenderedTools();
    expect(tools.length).toBeGreaterThan(30);
    for (const tool of tools) {
      const converted = {
        name: tool.name,
        description: tool.description,
        parameters: convertParameters(tool.parameters),
      };
      expect(prerenderedSpec(tool), tool.name).toBeDefined();
      expect(JSON.stringify(createRegistry([tool]).spec(tool))).toBe(JSON.stringify(converted));
      expect(toolSpecSize(tool)).toBe(JSON.stringify(converted).length);
    }
  });

  test("a tool named like a built-in, or a channel's variant of one, is converted from its own schema", () => {
    const impostor: AnyTool = { ...fileRead, parameters: v.object({ other: v.string() }) };
    expect(prerenderedSpec(impostor)).toBeUndefined();
    expect(toolSpec(impostor).parameters).toMatchObject({ properties: { other: { type: "string" } } });

    const channel: ChannelReply = {
      name: "telegram",
      maxUploadBytes: 1,
      reactions: ["👍", "🔥"],
      react: async () => {},
    };
    const variant = react.forChannel?.(channel);
    expect(variant && variant !== react).toBe(true);
    expect(prerenderedSpec(variant!)).toBeUndefined();
    expect(toolSpec(variant!).parameters).toMatchObject({ properties: { emoji: { enum: ["👍", "🔥"] } } });
  });

  test("from source, a built-in edited since the file was rendered is converted, not sent stale", () => {
    const original = fileRead.parameters;
    try {
      (fileRead as { parameters: v.GenericSchema }).parameters = v.object({ path: v.string(), edited: v.boolean() });
      expect(prerenderedSpec(fileRead)).toBeUndefined();
      (fileRead as { parameters: v.GenericSchema }).parameters = v.object({
        ...builtSchema(original).entries,
        path: v.pipe(v.string(), v.minLength(2)),
      });
      expect(prerenderedSpec(fileRead)).toBeUndefined();
    } finally {
      (fileRead as { parameters: v.GenericSchema }).parameters = original;
    }
    expect(prerenderedSpec(fileRead)).toBeDefined();
  });

  test("the compiled binary's request carries each built-in's schema exactly as conversion gives it", async () => {
    // The binary embeds the file without the from-source fingerprint check: this is what proves the embedded forms
    // are the ones converted from the very sources it was built from.
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => fake.close());
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
    const r = await runFermix(["ask", "ping"], { env, cwd: h.userHome });
    expect(r.code).toBe(0);
    const sent = fake.requests[0]!.body.tools as { name: string; parameters: unknown }[];
    const byName = new Map(prerenderedTools().map((t) => [t.name, t]));
    expect(sent.length).toBeGreaterThan(10);
    for (const tool of sent) {
      const source = byName.get(tool.name);
      expect(source, tool.name).toBeDefined();
      expect(JSON.stringify(tool.parameters)).toBe(JSON.stringify(convertParameters(source!.parameters)));
    }
  });
});
