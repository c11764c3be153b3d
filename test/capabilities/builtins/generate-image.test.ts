import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createGenerateImage, generateImage } from "../../../src/capabilities/builtins/generate-image.ts";
import { BUILTIN_TOOLS } from "../../../src/capabilities/builtins/registry.ts";
import type { Caller } from "../../../src/capabilities/caller.ts";
import type { ChannelReply, OutboundFile } from "../../../src/capabilities/channel-reply.ts";
import { createRegistry } from "../../../src/capabilities/registry.ts";
import type { ToolContext, ToolResult } from "../../../src/capabilities/tool.ts";
import { parseConfig } from "../../../src/config/load.ts";
import type { Config } from "../../../src/config/schema.ts";
import { IMAGE_NOT_CONFIGURED } from "../../../src/media/image-backends/image-settings.ts";
import { authFixture, inSeconds } from "../../auth/_helpers.ts";
import { startFakeCodex } from "../../fake/codex.ts";
import { type FakeImageApi, type ImageFlavor, PNG_PIXEL, startFakeImageApi } from "../../fake/image-apis.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { createLoopbackDoor } from "../../net/loopback-door.ts";
import { chatgptJwt } from "../../providers/_sign-in.ts";
import { makeTree } from "../../sandbox/_tree.ts";

/*
 * generate_image against the fake image APIs of each backend: the request each service gets, the file under
 * <workspace>/media, delivery to the chat, and everything refused before a paid call is made.
 */

const KEYS = {
  openai: "sk-test-images-openai-0123456789",
  xai: "xai-test-images-9876543210",
  google: "AIzaTestImages_0123456789",
};
// The real hosts resolve, in the test door, to public addresses whose sockets lead to the fakes.
const ADDRESSES = { openai: "1.1.1.1", xai: "1.0.0.1", google: "8.8.8.8", codex: "9.9.9.9" };
const HOSTS = {
  "api.openai.com": [ADDRESSES.openai],
  "api.x.ai": [ADDRESSES.xai],
  "generativelanguage.googleapis.com": [ADDRESSES.google],
  "chatgpt.com": [ADDRESSES.codex],
};

const tree = makeTree();
afterAll(() => tree[Symbol.dispose]());
const sandbox = tree.sandbox("standard");
const defer = cleanupAfterEach();
const owner: Caller = { trust: "operator", local: false, attended: true };

async function fake(flavor: ImageFlavor): Promise<FakeImageApi> {
  const api = await startFakeImageApi({ flavor, apiKey: KEYS[flavor] });
  defer(() => api.close());
  return api;
}

/** Resolves "$NAME" from the given environment and plaintext as itself, as config/secrets.ts does. */
function secrets(env: Record<string, string>) {
  return (ref: unknown, slot: string): string => {
    if (typeof ref !== "string") throw new Error(`${slot}: unsupported in this test`);
    const m = /^\$(\w+)$/.exec(ref);
    if (!m) return ref;
    const value = env[m[1]!];
    if (!value) throw new Error(`${slot} points at the environment variable ${m[1]}, which is not set`);
    return value;
  };
}

function chat(opts: { inbound?: Uint8Array; fail?: string } = {}) {
  const sent: OutboundFile[] = [];
  const channel: ChannelReply = {
    name: "telegram",
    maxUploadBytes: 50 * 1024 * 1024,
    sendFile: async (file) => {
      if (opts.fail) throw new Error(opts.fail);
      sent.push(file);
    },
    ...(opts.inbound ? { inboundImage: () => ({ mime: "image/jpeg", data: opts.inbound! }) } : {}),
  };
  return { channel, sent };
}

function context(options: {
  config: Config;
  env?: Record<string, string>;
  routes?: Record<string, string>;
  channel?: ChannelReply;
}): ToolContext {
  const door = createLoopbackDoor({ names: HOSTS, routes: options.routes ?? {} });
  return {
    caller: { ...owner, cwd: tree.workspace },
    conversation: { channel: "telegram", chat: "42" },
    signal: new AbortController().signal,
    sandbox,
    net: door.net,
    log: { warn() {}, info() {} },
    now: Date.now,
    config: options.config,
    notify() {},
    resolveSecret: secrets(options.env ?? {}),
    surface: () => [],
    channel: options.channel,
  } as unknown as ToolContext;
}

const imageConfig = (section: Record<string, unknown>, providers: Record<string, unknown> = {}): Config =>
  ({ fermix_core: { tools: { generate_image: section }, providers } }) as Config;

async function run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const result = await generateImage.execute(args as never, ctx);
  const out = typeof result === "string" ? { content: result } : result;
  for (const key of Object.values(KEYS)) expect(out.content).not.toContain(key);
  return out;
}

/** The file the result names, which must lie under <workspace>/media. */
function savedFile(result: ToolResult): string {
  const path = /saved it to (\S+?\.png)/.exec(result.content)?.[1];
  expect(path).toBeDefined();
  expect(path!.startsWith(join(tree.workspace, "media", "image-"))).toBe(true);
  expect(new Uint8Array(readFileSync(path!))).toEqual(PNG_PIXEL);
  return path!;
}

function writeInput(name: string, bytes: Uint8Array = PNG_PIXEL): string {
  const path = join(tree.workspace, name);
  writeFileSync(path, bytes);
  return path;
}

describe("generate_image on the openai backend", () => {
  test("generate through the real host (the guarded door): JSON request, file saved, not sent without a chat", async () => {
    const api = await fake("openai");
    const ctx = context({
      config: imageConfig({ backend: "openai" }, { openai: { api_key: "$OPENAI_API_KEY" } }),
      env: { OPENAI_API_KEY: KEYS.openai },
      routes: { [ADDRESSES.openai]: new URL(api.baseUrl).origin },
    });
    const result = await run({ prompt: "a red fox in snow", size: "1536x1024" }, ctx);
    expect(result.isError).toBeUndefined();
    expect(api.requests).toHaveLength(1);
    const seen = api.requests[0]!;
    expect(seen.path).toBe("/v1/images/generations");
    expect(seen.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
    expect(seen.json).toEqual({ model: "gpt-image-2", prompt: "a red fox in snow", n: 1, size: "1536x1024" });
    savedFile(result);
    expect(result.content).toStartWith("Generated an image with OpenAI (gpt-image-2)");
    expect(result.content).not.toContain("sent");
  });

  test("edit with a sandbox picture and a mask: multipart fields, and the result is sent to the chat", async () => {
    const api = await fake("openai");
    const { channel, sent } = chat();
    const ctx = context({
      config: imageConfig(
        { backend: "openai", base_url: api.baseUrl, model: "gpt-image-1.5" },
        { openai: { api_key: KEYS.openai } },
      ),
      channel,
    });
    const input = writeInput("cat.png");
    const mask = writeInput("mask.png");
    const result = await run({ prompt: "add a hat", input_image: input, mask, size: "1024x1024" }, ctx);
    expect(result.isError).toBeUndefined();
    const seen = api.requests[0]!;
    expect(seen.path).toBe("/v1/images/edits");
    expect(seen.headers["content-type"]).toStartWith("multipart/form-data; boundary=");
    expect(seen.fields).toEqual([
      { name: "prompt", value: "add a hat" },
      { name: "model", value: "gpt-image-1.5" },
      { name: "n", value: "1" },
      { name: "size", value: "1024x1024" },
    ]);
    expect(seen.files.map((f) => ({ name: f.name, type: f.type, bytes: f.bytes }))).toEqual([
      { name: "image", type: "image/png", bytes: PNG_PIXEL },
      { name: "mask", type: "image/png", bytes: PNG_PIXEL },
    ]);
    const path = savedFile(result);
    expect(result.content).toStartWith("Edited an image with OpenAI (gpt-image-1.5)");
    expect(result.content).toEndWith("it was sent to this chat.");
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: "image", mime: "image/png", filename: path.split("/").at(-1) });
    expect(sent[0]!.bytes).toEqual(PNG_PIXEL);
  });

  test("delivery save in a chat keeps the file and sends nothing", async () => {
    const api = await fake("openai");
    const { channel, sent } = chat();
    const ctx = context({ config: imageConfig({ backend: "openai", base_url: api.baseUrl }), env: {}, channel });
    const withKey = { ...ctx, resolveSecret: secrets({ OPENAI_API_KEY: KEYS.openai }) };
    const result = await run({ prompt: "a lighthouse", delivery: "save" }, withKey);
    savedFile(result);
    expect(sent).toHaveLength(0);
  });

  test("the provider's refusal comes back as a tool error in its words, without the key", async () => {
    const api = await fake("openai");
    const wrong = "sk-test-wrong-key-5555555555";
    const ctx = context({
      config: imageConfig({ backend: "openai", base_url: api.baseUrl }, { openai: { api_key: wrong } }),
    });
    const result = await run({ prompt: "a fox" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("openai refused the request (HTTP 401): Incorrect API key provided: sk-");
    expect(result.content).not.toContain(wrong);

    api.enqueue({ kind: "error", status: 400 });
    const ok = context({
      config: imageConfig({ backend: "openai", base_url: api.baseUrl }, { openai: { api_key: KEYS.openai } }),
    });
    const blocked = await run({ prompt: "something not allowed" }, ok);
    expect(blocked).toEqual({
      isError: true,
      content: expect.stringContaining("Your request was rejected as a result of our safety system."),
    });
  });

  test("an aspect ratio is refused: openai takes a pixel size", async () => {
    const api = await fake("openai");
    const ctx = context({
      config: imageConfig({ backend: "openai", base_url: api.baseUrl }, { openai: { api_key: KEYS.openai } }),
    });
    const result = await run({ prompt: "wide", size: "16:9" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('pixel size such as "1024x1024"');
    expect(api.requests).toHaveLength(0);
  });
});

describe("generate_image on the xai backend", () => {
  test("generate on an owner's loopback base_url: JSON with response_format b64_json and an aspect ratio", async () => {
    const api = await fake("xai");
    const ctx = context({
      config: imageConfig({ backend: "xai", base_url: api.baseUrl }, { xai: { api_key: KEYS.xai } }),
    });
    const result = await run({ prompt: "a neon city", size: "16:9" }, ctx);
    expect(result.isError).toBeUndefined();
    const seen = api.requests[0]!;
    expect(seen.path).toBe("/v1/images/generations");
    expect(seen.headers.authorization).toBe(`Bearer ${KEYS.xai}`);
    expect(seen.json).toEqual({
      model: "grok-imagine-image-quality",
      prompt: "a neon city",
      n: 1,
      response_format: "b64_json",
      aspect_ratio: "16:9",
    });
    savedFile(result);
  });

  test("a pixel size becomes its aspect ratio, and the result says so", async () => {
    const api = await fake("xai");
    const ctx = context({
      config: imageConfig({ backend: "xai", base_url: api.baseUrl, size: "1536x1024" }, { xai: { api_key: KEYS.xai } }),
    });
    const result = await run({ prompt: "a harbour" }, ctx);
    expect(api.requests[0]!.json.aspect_ratio).toBe("3:2");
    expect(result.content).toContain("at aspect ratio 3:2 (xai takes no pixel size)");
  });

  test("edit of inbound:last: the chat's last picture goes as a data URL to /images/edits", async () => {
    const api = await fake("xai");
    const { channel, sent } = chat({ inbound: PNG_PIXEL });
    const ctx = context({
      config: imageConfig({ backend: "xai" }, { xai: { api_key: "$XAI_API_KEY" } }),
      env: { XAI_API_KEY: KEYS.xai },
      routes: { [ADDRESSES.xai]: new URL(api.baseUrl).origin },
      channel,
    });
    const result = await run({ prompt: "make it a watercolour", input_image: "inbound:last" }, ctx);
    expect(result.isError).toBeUndefined();
    const seen = api.requests[0]!;
    expect(seen.path).toBe("/v1/images/edits");
    // The bytes decide the type: the chat called it a JPEG, the pixels are a PNG.
    expect(seen.json.image).toEqual({ url: `data:image/png;base64,${Buffer.from(PNG_PIXEL).toString("base64")}` });
    expect(sent).toHaveLength(1);
  });

  test("inbound:last without a picture in this chat is refused before any request", async () => {
    const api = await fake("xai");
    const ctx = context({
      config: imageConfig({ backend: "xai", base_url: api.baseUrl }, { xai: { api_key: KEYS.xai } }),
      channel: chat().channel,
    });
    const result = await run({ prompt: "edit it", input_image: "inbound:last" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("no picture was sent in this chat");
    expect(api.requests).toHaveLength(0);
  });

  test("a wrong key is SpaceXAI's 400 in its words", async () => {
    const api = await fake("xai");
    const ctx = context({
      config: imageConfig({ backend: "xai", base_url: api.baseUrl }, { xai: { api_key: "xai-wrong-key-0000000" } }),
    });
    const result = await run({ prompt: "a cat" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("xai refused the request (HTTP 400): Incorrect API key provided");
    expect(result.content).not.toContain("xai-wrong-key-0000000");
  });
});

describe("generate_image on the google backend", () => {
  test("generate through the real host: generateContent with the key header, the picture from inlineData", async () => {
    const api = await fake("google");
    const ctx = context({
      config: imageConfig({ backend: "google", google_api_key: "$GEMINI_API_KEY", size: "1:1" }),
      env: { GEMINI_API_KEY: KEYS.google },
      routes: { [ADDRESSES.google]: new URL(api.baseUrl).origin },
    });
    const result = await run({ prompt: "a bowl of ramen" }, ctx);
    expect(result.isError).toBeUndefined();
    const seen = api.requests[0]!;
    expect(seen.path).toBe("/v1beta/models/gemini-3.1-flash-image:generateContent");
    expect(seen.headers["x-goog-api-key"]).toBe(KEYS.google);
    expect(seen.query).toEqual({});
    expect(seen.json).toEqual({
      contents: [{ role: "user", parts: [{ text: "a bowl of ramen" }] }],
      generationConfig: { responseModalities: ["TEXT", "IMAGE"], imageConfig: { aspectRatio: "1:1" } },
    });
    savedFile(result);
    expect(result.content).toStartWith("Generated an image with Google Gemini (gemini-3.1-flash-image)");
  });

  test("edit: the picture goes as an inlineData part after the prompt; another model may be named", async () => {
    const api = await fake("google");
    const ctx = context({
      config: imageConfig({ backend: "google", base_url: api.baseUrl, google_api_key: KEYS.google }),
    });
    const input = writeInput("bowl.png");
    const result = await run({ prompt: "add chopsticks", input_image: input, model: "gemini-3-pro-image" }, ctx);
    expect(result.isError).toBeUndefined();
    const seen = api.requests[0]!;
    expect(seen.path).toBe("/v1beta/models/gemini-3-pro-image:generateContent");
    expect(seen.json.contents[0].parts).toEqual([
      { text: "add chopsticks" },
      { inlineData: { mimeType: "image/png", data: Buffer.from(PNG_PIXEL).toString("base64") } },
    ]);
    expect(seen.json.generationConfig).toEqual({ responseModalities: ["TEXT", "IMAGE"] });
  });

  test("a blocked prompt and a wrong key are tool errors in Google's words", async () => {
    const api = await fake("google");
    api.enqueue({ kind: "blocked" });
    const ctx = context({
      config: imageConfig({ backend: "google", base_url: api.baseUrl, google_api_key: KEYS.google }),
    });
    const blocked = await run({ prompt: "not allowed" }, ctx);
    expect(blocked).toEqual({
      isError: true,
      content: "google made no image: the prompt was blocked (PROHIBITED_CONTENT)",
    });
    const wrong = context({
      config: imageConfig({ backend: "google", base_url: api.baseUrl, google_api_key: "AIzaWrongKey_00000000" }),
    });
    const refused = await run({ prompt: "a cat" }, wrong);
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain(
      "google refused the request (HTTP 400): API key not valid. Please pass a valid API key.",
    );
    expect(refused.content).not.toContain("AIzaWrongKey_00000000");
  });
});

describe("generate_image on the openai_codex backend (the ChatGPT plan's sign-in)", () => {
  // The fake token endpoint's ChatGPT account: a refreshed token carries it too.
  const ACCOUNT = "acct-fake-123";

  /** A temp FERMIX_HOME with auth.json as `fermix auth login --provider codex` leaves it, the fake Codex backend. */
  async function codexSetup(
    opts: { signedIn?: boolean; imagePlan?: boolean; stale?: boolean; refusesRefreshed?: boolean } = {},
  ) {
    const auth = authFixture(defer);
    const token = chatgptJwt(ACCOUNT);
    const codex = await startFakeCodex({
      accessToken: opts.stale ? "nobody-has-this-token" : token,
      accountId: ACCOUNT,
      acceptToken: (t) => !opts.refusesRefreshed && auth.fake.issued.includes(t),
      ...(opts.imagePlan === false ? { imagePlan: false } : {}),
    });
    defer(() => codex.close());
    if (opts.signedIn !== false) {
      auth.writeAuth({
        version: 2,
        providers: {
          openai_codex: {
            auth_mode: "oauth_pkce",
            tokens: { access_token: token, refresh_token: auth.fake.seedRefreshToken("codex") },
            expires_at: inSeconds(3600),
            status: "ready",
          },
        },
      });
    }
    const tool = createGenerateImage({ env: auth.env });
    const call = async (args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> => {
      const result = await tool.execute(args as never, { ...ctx, configFile: auth.paths.config });
      const out = typeof result === "string" ? { content: result } : result;
      for (const secret of auth.fake.issued.concat(token)) expect(out.content).not.toContain(secret);
      return out;
    };
    return { auth, token, codex, call };
  }

  test("generate through the real host: the hosted image_generation tool on /responses, signed in, PNG saved", async () => {
    const { token, codex, call } = await codexSetup();
    const ctx = context({
      config: imageConfig({ backend: "openai_codex", size: "1536x1024" }),
      routes: { [ADDRESSES.codex]: new URL(codex.baseUrl).origin },
    });
    const result = await call({ prompt: "a red fox in snow" }, ctx);
    expect(result.isError).toBeUndefined();
    expect(codex.requests).toHaveLength(1);
    const seen = codex.requests[0]!;
    expect(seen.path).toBe("/backend-api/codex/responses");
    expect(seen.headers).toMatchObject({
      authorization: `Bearer ${token}`,
      "chatgpt-account-id": ACCOUNT,
      "openai-beta": "responses=experimental",
      originator: "pi",
    });
    const body = seen.body as Record<string, any>;
    expect(body).toMatchObject({
      model: "gpt-5.6-terra",
      input: [{ role: "user", content: [{ type: "input_text", text: "a red fox in snow" }] }],
      tools: [{ type: "image_generation", output_format: "png", size: "1536x1024" }],
      tool_choice: { type: "image_generation" },
      store: false,
      stream: true,
    });
    expect(body.instructions).toContain("image_generation");
    savedFile(result);
    expect(result.content).toStartWith("Generated an image with ChatGPT plan (Codex) (gpt-5.6-terra)");
  });

  test("edit on the provider's base_url: the picture as an input_image data URL; mask and aspect ratio refused first", async () => {
    const { codex, call } = await codexSetup();
    const { channel, sent } = chat();
    const ctx = context({
      config: imageConfig({ backend: "openai_codex", model: "gpt-5.5" }, { openai_codex: { base_url: codex.baseUrl } }),
      channel,
    });
    const input = writeInput("cat.png");
    expect(await call({ prompt: "add a hat", input_image: input, mask: writeInput("m.png") }, ctx)).toEqual({
      isError: true,
      content:
        "mask is supported by the openai backend only; the configured backend is openai_codex. Describe the area to change in the prompt instead.",
    });
    expect((await call({ prompt: "wide", size: "16:9" }, ctx)).content).toContain('pixel size such as "1024x1024"');
    expect(codex.requests).toHaveLength(0);

    const result = await call({ prompt: "add a hat", input_image: input }, ctx);
    expect(result.isError).toBeUndefined();
    const body = codex.requests[0]!.body as Record<string, any>;
    expect(body.model).toBe("gpt-5.5");
    expect(body.input[0].content).toEqual([
      { type: "input_text", text: "add a hat" },
      { type: "input_image", image_url: `data:image/png;base64,${Buffer.from(PNG_PIXEL).toString("base64")}` },
    ]);
    expect(body.tools).toEqual([{ type: "image_generation", output_format: "png" }]);
    savedFile(result);
    expect(result.content).toStartWith("Edited an image with ChatGPT plan (Codex) (gpt-5.5)");
    expect(sent).toHaveLength(1);
  });

  test("a 401 refreshes the sign-in once (auth.json updated) and the call is retried with the new token", async () => {
    const { auth, token, codex, call } = await codexSetup({ stale: true });
    const ctx = context({
      config: imageConfig({ backend: "openai_codex" }, { openai_codex: { base_url: codex.baseUrl } }),
    });
    const result = await call({ prompt: "a lighthouse" }, ctx);
    expect(result.isError).toBeUndefined();
    savedFile(result);
    expect(codex.requests).toHaveLength(2);
    expect(codex.requests[0]!.headers.authorization).toBe(`Bearer ${token}`);
    const fresh = JSON.parse(readFileSync(auth.paths.auth, "utf8")).providers.openai_codex.tokens.access_token;
    expect(fresh).not.toBe(token);
    expect(codex.requests[1]!.headers.authorization).toBe(`Bearer ${fresh}`);
    expect(auth.fake.tokenCalls).toEqual([{ provider: "codex", grant_type: "refresh_token", status: 200 }]);
  });

  test("a token still refused after the refresh: auth_failed with the sign-in, no third try", async () => {
    const { codex, call } = await codexSetup({ stale: true, refusesRefreshed: true });
    const ctx = context({
      config: imageConfig({ backend: "openai_codex" }, { openai_codex: { base_url: codex.baseUrl } }),
    });
    const result = await call({ prompt: "a lighthouse" }, ctx);
    expect(result).toEqual({
      isError: true,
      content:
        "auth_failed: openai_codex still refused the signed-in token after refreshing it (HTTP 401); sign in again: fermix auth login --provider codex",
    });
    expect(codex.requests).toHaveLength(2);
  });

  test("a plan without image generation (403) is auth_failed in the tool's words, nothing saved", async () => {
    const { codex, call } = await codexSetup({ imagePlan: false });
    const ctx = context({
      config: imageConfig({ backend: "openai_codex" }, { openai_codex: { base_url: codex.baseUrl } }),
    });
    const result = await call({ prompt: "a fox" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toStartWith("auth_failed: your ChatGPT plan does not include image generation");
    expect(result.content).toContain("(HTTP 403: Image generation is not available on your current plan.)");
    expect(codex.requests).toHaveLength(1);
  });

  test("not signed in: the sign-in sentence, and nothing is sent", async () => {
    const { codex, call } = await codexSetup({ signedIn: false });
    const ctx = context({
      config: imageConfig({ backend: "openai_codex" }, { openai_codex: { base_url: codex.baseUrl } }),
    });
    const result = await call({ prompt: "a fox" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toStartWith("openai_codex: not logged in");
    expect(result.content).toContain("fermix auth login --provider codex");
    expect(codex.requests).toHaveLength(0);
  });
});

describe("refused before any request", () => {
  test.each(["xai", "google"] as const)("mask on %s is refused (OpenAI only)", async (backend) => {
    const api = await fake(backend);
    const ctx = context({
      config: imageConfig(
        { backend, base_url: api.baseUrl, google_api_key: KEYS.google },
        { xai: { api_key: KEYS.xai } },
      ),
    });
    const result = await run({ prompt: "edit", input_image: writeInput("in.png"), mask: writeInput("m.png") }, ctx);
    expect(result).toEqual({
      isError: true,
      content: `mask is supported by the openai backend only; the configured backend is ${backend}. Describe the area to change in the prompt instead.`,
    });
    expect(api.requests).toHaveLength(0);
  });

  test('delivery "send" without a chat is refused before the provider is called', async () => {
    const api = await fake("openai");
    const ctx = context({
      config: imageConfig({ backend: "openai", base_url: api.baseUrl }, { openai: { api_key: KEYS.openai } }),
    });
    const result = await run({ prompt: "a fox", delivery: "send" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('delivery "send" needs a chat');
    expect(api.requests).toHaveLength(0);
  });

  test("no backend: exactly the not-configured sentence", async () => {
    const result = await run({ prompt: "a fox" }, context({ config: {} as Config }));
    expect(result).toEqual({ isError: true, content: IMAGE_NOT_CONFIGURED });
    expect(IMAGE_NOT_CONFIGURED).toBe(
      "Image generation is not configured. Run `fermix setup` and choose an image backend.",
    );
  });

  test("a backend without a key says which key to set", async () => {
    const api = await fake("openai");
    const ctx = context({ config: imageConfig({ backend: "openai", base_url: api.baseUrl }), env: {} });
    const result = await run({ prompt: "a fox" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("the openai backend has no key");
    expect(result.content).toContain("[fermix_core.providers.openai] api_key (or OPENAI_API_KEY)");
    expect(api.requests).toHaveLength(0);
  });

  test("an edit without input_image, and an input that is no picture", async () => {
    const api = await fake("openai");
    const ctx = context({
      config: imageConfig({ backend: "openai", base_url: api.baseUrl }, { openai: { api_key: KEYS.openai } }),
    });
    expect((await run({ prompt: "x", operation: "edit" }, ctx)).content).toStartWith("an edit needs input_image");
    const text = writeInput("notes.png", new TextEncoder().encode("just words"));
    expect((await run({ prompt: "x", input_image: text }, ctx)).content).toContain(
      "is not a PNG, JPEG, WebP or GIF picture",
    );
    expect((await run({ prompt: "x", input_image: join(tree.outside, "secret.txt") }, ctx)).content).toStartWith(
      "Denied:",
    );
    expect(api.requests).toHaveLength(0);
  });
});

describe("a sent picture that the chat refuses", () => {
  test("the file is kept and the result says the send failed", async () => {
    const api = await fake("openai");
    const { channel } = chat({ fail: "photo.png is 12 MB; Telegram bots can send a photo of up to 10 MB." });
    const ctx = context({
      config: imageConfig({ backend: "openai", base_url: api.baseUrl }, { openai: { api_key: KEYS.openai } }),
      channel,
    });
    const result = await run({ prompt: "huge" }, ctx);
    expect(result.isError).toBeUndefined();
    savedFile(result);
    expect(result.content).toContain("but sending it to this chat failed: photo.png is 12 MB");
  });
});

describe("generate_image in the registry", () => {
  const registry = createRegistry(BUILTIN_TOOLS);
  test("offered to the owner everywhere (CLI, jobs, chats), deferrable, never to a guest", () => {
    const names = (caller: Caller) => registry.surface(caller).map((t) => t.name);
    expect(names(owner)).toContain("generate_image");
    expect(names({ ...owner, attended: false })).toContain("generate_image");
    expect(names({ trust: "guest", local: false, attended: true })).not.toContain("generate_image");
    expect(generateImage.deferrable).toBe(true);
    expect(generateImage.policy).toBe("network");
  });
});

describe("[fermix_core.tools.generate_image] in config.toml", () => {
  test("size and base_url are read; a bad size is refused naming the key and the form", () => {
    const good = parseConfig(
      '[fermix_core.tools.generate_image]\nbackend = "xai"\nsize = "16:9"\nbase_url = "http://127.0.0.1:9/v1"\n',
      "config.toml",
    );
    expect(good.fermix_core?.tools?.generate_image).toEqual({
      backend: "xai",
      size: "16:9",
      base_url: "http://127.0.0.1:9/v1",
    });
    expect(() =>
      parseConfig('[fermix_core.tools.generate_image]\nbackend = "openai"\nsize = "huge"\n', "config.toml"),
    ).toThrow(/generate_image.*size[\s\S]*"1024x1024"/);
  });
});
