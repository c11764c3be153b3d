import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { MAX_ASK_BODY_BYTES } from "../../src/protocol/ask-parts.ts";
import { createDaemonClient } from "../../src/protocol/client.ts";
import { startFakeAnthropic, startFakeChatCompletions, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { fileIn, PDF, PNG } from "./_ask-files.ts";

const OPENAI_KEY = "sk-test-openai-0123456789abcdef";
const ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef";
const defer = cleanupAfterEach();

async function openai() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: OPENAI_KEY });
  defer(() => fake.close());
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { h, fake, env };
}

/** The parts of the request's last user message. */
const userParts = (body: any): any[] => body.input.filter((i: any) => i.role === "user").at(-1).content;

describe("fermix ask --attach (built binary)", () => {
  test("-a picture.png sends an image part; history keeps a placeholder, not the bytes", async () => {
    const { h, fake, env } = await openai();
    const png = fileIn(h.userHome, "picture.png", PNG);
    const r = await runFermix(["ask", "-a", png, "--json", "what is this?"], { env });
    expect(r.code).toBe(0);
    const parts = userParts(fake.requests[0]!.body);
    expect(parts[0]).toEqual({
      type: "input_image",
      image_url: `data:image/png;base64,${PNG.toString("base64")}`,
      detail: "auto",
    });
    expect(parts.at(-1)).toEqual({ type: "input_text", text: "what is this?" });
    const id = JSON.parse(r.stdout).session_id;
    await runFermix(["ask", "-s", id, "and now?"], { env });
    const replayed = JSON.stringify(fake.requests[1]!.body.input);
    expect(replayed).toContain("[image: image/png, 1 KB]");
    expect(replayed).not.toContain("input_image");
  });

  test("the type comes from the bytes: a PNG named .pdf is sent as a PNG", async () => {
    const { h, fake, env } = await openai();
    const r = await runFermix(["ask", "-a", fileIn(h.userHome, "named.pdf", PNG), "look"], { env });
    expect(r.code).toBe(0);
    expect(userParts(fake.requests[0]!.body)[0].type).toBe("input_image");
  });

  test("a text-only model is refused before any request", async () => {
    const { h, fake, env } = await openai();
    const png = fileIn(h.userHome, "picture.png", PNG);
    const r = await runFermix(["ask", "--model", "gpt-3.5-turbo", "-a", png, "what is this?"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot read images");
    expect(fake.requests).toHaveLength(0);
  });

  test("a missing, oversized or unsupported file is a usage error naming the path and the limit", async () => {
    const { h, fake, env } = await openai();
    const big = Buffer.alloc(21 * 1024 * 1024);
    PNG.copy(big);
    const huge = fileIn(h.userHome, "huge.png", big);
    const r = await runFermix(["ask", "-a", huge, "what is this?"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(huge);
    expect(r.stderr).toContain("20 MiB");
    const missing = await runFermix(["ask", "-a", `${h.userHome}/nope.png`, "hi"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${h.userHome}/nope.png`);
    const text = fileIn(h.userHome, "notes.png", Buffer.from("just some text, not a picture"));
    const unsupported = await runFermix(["ask", "-a", text, "hi"], { env });
    expect(unsupported.code).toBe(2);
    expect(unsupported.stderr).toContain(`${text}: not a PNG, JPEG, GIF, WebP or PDF file`);
    expect(fake.requests).toHaveLength(0);
  });

  test("-a - reads the attachment from stdin", async () => {
    const { fake, env } = await openai();
    const r = await runFermix(["ask", "-a", "-", "what is this?"], { env, stdin: new Uint8Array(PNG) });
    expect(r.code).toBe(0);
    const parts = userParts(fake.requests[0]!.body);
    expect(parts[0].image_url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    expect(parts.at(-1).text).toBe("what is this?");
  });

  test("a PDF reaches Responses as an input_file", async () => {
    const { h, fake, env } = await openai();
    const r = await runFermix(["ask", "-a", fileIn(h.userHome, "report.pdf", PDF), "summarise"], { env });
    expect(r.code).toBe(0);
    expect(userParts(fake.requests[0]!.body)[0]).toEqual({
      type: "input_file",
      filename: "report.pdf",
      file_data: `data:application/pdf;base64,${PDF.toString("base64")}`,
    });
  });

  test("a PDF reaches Anthropic as a document block", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    defer(() => fake.close());
    const env = {
      FERMIX_HOME: h.home,
      HOME: h.userHome,
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: fake.baseUrl,
    };
    const r = await runFermix(["ask", "-a", fileIn(h.userHome, "report.pdf", PDF), "summarise"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "pong\n" });
    const content = fake.requests[0]!.body.messages.at(-1).content;
    expect(content[0]).toEqual({
      type: "document",
      source: { type: "base64", media_type: "application/pdf", data: PDF.toString("base64") },
      title: "report.pdf",
    });
  });

  test("a PDF to a Chat Completions provider is refused naming it, before any request", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeChatCompletions({ flavor: "ollama" });
    defer(() => fake.close());
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OLLAMA_BASE_URL: fake.baseUrl };
    const r = await runFermix(["ask", "-a", fileIn(h.userHome, "report.pdf", PDF), "summarise"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Ollama (ollama) cannot take a PDF attachment");
    expect(fake.requests).toHaveLength(0);
  });

  test("through the daemon: the picture crosses the socket and reaches the model", async () => {
    const { h, fake, env } = await openai();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const png = fileIn(h.userHome, "picture.png", PNG);
    const pdf = fileIn(h.userHome, "report.pdf", PDF);
    const r = await runFermix(["ask", "--daemon", "-a", png, "-a", pdf, "both?"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "pong\n" });
    const parts = userParts(fake.requests[0]!.body);
    expect(parts.map((p) => p.type)).toEqual(["input_file", "input_image", "input_text"]);
  });

  test("a body over the daemon's limit is refused with the limit named, not a dropped connection", async () => {
    const { h, env } = await openai();
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    const client = createDaemonClient(join(h.home, "daemon.sock"));
    const oversized = { text: "x".repeat(MAX_ASK_BODY_BYTES + 1) };
    const refused = await client.ask(oversized).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: "request_too_large", message: expect.stringContaining("131 MiB") });
  });
});
