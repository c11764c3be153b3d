import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeCodex } from "../fake/codex.ts";
import { PNG_PIXEL, startFakeImageApi } from "../fake/image-apis.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { chatgptJwt } from "../providers/_sign-in.ts";

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

  test("on a ChatGPT plan: openai_codex chats and draws through the same Codex sign-in from auth.json", async () => {
    const account = "acct-cli-images-7";
    const token = chatgptJwt(account);
    const codex = await startFakeCodex({ accessToken: token, accountId: account });
    defer(() => codex.close());
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    h.writeConfig(
      [
        "[fermix_core.providers.openai_codex]",
        "primary = true",
        `base_url = "${codex.baseUrl}"`,
        "[fermix_core.tools.generate_image]",
        'backend = "openai_codex"',
        "",
      ].join("\n"),
    );
    mkdirSync(h.home, { recursive: true, mode: 0o700 });
    const entry = {
      auth_mode: "oauth_pkce",
      tokens: { access_token: token, refresh_token: "rt-unused" },
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      status: "ready",
    };
    writeFileSync(join(h.home, "auth.json"), JSON.stringify({ version: 2, providers: { openai_codex: entry } }), {
      mode: 0o600,
    });
    // The turn's first answer calls the tool; the image request and the closing turn get the fake's own replies.
    codex.enqueue({ kind: "tool_calls", calls: [{ name: "generate_image", arguments: { prompt: "a fox" } }] });
    const asked = await runFermix(["ask", "--no-daemon", "draw a fox"], {
      env: { FERMIX_HOME: h.home, HOME: h.userHome },
    });
    expect(asked.stderr).not.toContain(token);
    expect(asked.code).toBe(0);
    const image = codex.requests[1]!;
    expect(image.headers).toMatchObject({ authorization: `Bearer ${token}`, "chatgpt-account-id": account });
    expect(image.body).toMatchObject({
      model: "gpt-5.6-terra",
      tools: [{ type: "image_generation" }],
      tool_choice: { type: "image_generation" },
    });
    const media = readdirSync(join(h.home, "workspace", "media"));
    expect(media).toHaveLength(1);
    expect(new Uint8Array(readFileSync(join(h.home, "workspace", "media", media[0]!)))).toEqual(PNG_PIXEL);
    expect(toolOutput(codex.requests[2]!.body)).toStartWith(
      "Generated an image with ChatGPT plan (Codex) (gpt-5.6-terra)",
    );
  });
});
