import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PNG_PIXEL, startFakeImageApi } from "../fake/image-apis.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/*
 * generate_image outside a chat, through the compiled binary: `fermix capabilities` always lists it, a call with no
 * backend gets the not-configured sentence, and `fermix ask` (no chat to send to) only saves the picture.
 */

const KEY = "sk-test-cli-images-0123456789";
const defer = cleanupAfterEach();

async function setup(config: string[] = []) {
  const h = tempHome();
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => llm.close());
  if (config.length) h.writeConfig([...config, ""].join("\n"));
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: llm.baseUrl };
  return { h, llm, env };
}

const toolOutput = (body: any): string => body.input.find((i: any) => i.type === "function_call_output")?.output ?? "";

describe("generate_image from the CLI (compiled binary)", () => {
  test("fermix capabilities lists it with no backend configured", async () => {
    const { env } = await setup();
    const listed = await runFermix(["capabilities", "--json"], { env });
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout).result.capabilities;
    expect(rows).toContainEqual(
      expect.objectContaining({ name: "generate_image", kind: "builtin", policy: "network", read_only: false }),
    );
  });

  test("a call without a backend says what to set up, and nothing is written", async () => {
    const { h, llm, env } = await setup();
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "generate_image", arguments: { prompt: "a fox" } }] },
      { kind: "text", text: "Image generation needs setting up." },
    );
    const asked = await runFermix(["ask", "--no-daemon", "draw a fox"], { env });
    expect(asked.stdout).toContain("Image generation needs setting up.");
    expect(toolOutput(llm.requests[1]!.body)).toBe(
      "Image generation is not configured. Run `fermix setup` and choose an image backend.",
    );
    expect(() => readdirSync(join(h.home, "workspace", "media"))).toThrow();
  });

  test("fermix ask saves the picture under workspace/media and sends it nowhere", async () => {
    const images = await startFakeImageApi({ flavor: "openai", apiKey: KEY });
    defer(() => images.close());
    const { h, llm, env } = await setup([
      "[fermix_core.tools.generate_image]",
      'backend = "openai"',
      `base_url = "${images.baseUrl}"`,
    ]);
    llm.enqueue(
      { kind: "tool_calls", calls: [{ name: "generate_image", arguments: { prompt: "a fox", size: "1024x1024" } }] },
      { kind: "text", text: "Saved." },
    );
    const asked = await runFermix(["ask", "--no-daemon", "draw a fox"], { env });
    expect(asked.stdout).toContain("Saved.");
    expect(asked.stderr).not.toContain(KEY);
    const media = readdirSync(join(h.home, "workspace", "media"));
    expect(media).toHaveLength(1);
    expect(media[0]).toMatch(/^image-[0-9a-f]{12}\.png$/);
    expect(new Uint8Array(readFileSync(join(h.home, "workspace", "media", media[0]!)))).toEqual(PNG_PIXEL);
    const output = toolOutput(llm.requests[1]!.body);
    expect(output).toBe(
      `Generated an image with OpenAI (gpt-image-2) and saved it to ${join(h.home, "workspace", "media", media[0]!)}.`,
    );
  });
});
