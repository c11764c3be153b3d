/**
 * The fake OpenAI Images API speaks what the official `openai` SDK sends and parses: `images.generate` (JSON) and
 * `images.edit` (multipart, image + mask), base64 answers, and the real 400/401 shapes surfaced as the SDK's own
 * APIError classes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { type FakeImageApi, PNG_PIXEL, startFakeImageApi } from "./image-apis.ts";

const KEY = "sk-test-image-apis-1357";

describe("OpenAI Images through the openai SDK", () => {
  let fake: FakeImageApi;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeImageApi({ flavor: "openai", apiKey: KEY });
    client = new OpenAI({ apiKey: KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  test("images.generate: the JSON request is accepted and the picture comes back as b64_json", async () => {
    const answer = await client.images.generate({ model: "gpt-image-2", prompt: "a red fox", size: "1536x1024" });
    expect(Buffer.from(answer.data![0]!.b64_json!, "base64")).toEqual(Buffer.from(PNG_PIXEL));
    expect(answer.size).toBe("1536x1024");
    const seen = fake.requests.at(-1)!;
    expect(seen.path).toBe("/v1/images/generations");
    expect(seen.json).toEqual({ model: "gpt-image-2", prompt: "a red fox", size: "1536x1024" });
  });

  test("images.edit: image, mask, prompt, model and size arrive as multipart fields", async () => {
    const answer = await client.images.edit({
      model: "gpt-image-2",
      prompt: "add a hat",
      image: await toFile(PNG_PIXEL, "cat.png", { type: "image/png" }),
      mask: await toFile(PNG_PIXEL, "mask.png", { type: "image/png" }),
      size: "1024x1024",
    });
    expect(answer.data![0]!.b64_json).toBeString();
    const seen = fake.requests.at(-1)!;
    expect(seen.path).toBe("/v1/images/edits");
    expect(seen.fields).toEqual(
      expect.arrayContaining([
        { name: "prompt", value: "add a hat" },
        { name: "model", value: "gpt-image-2" },
        { name: "size", value: "1024x1024" },
      ]),
    );
    expect(seen.files.map((f) => [f.name, f.filename, f.bytes.byteLength])).toEqual([
      ["image", "cat.png", PNG_PIXEL.byteLength],
      ["mask", "mask.png", PNG_PIXEL.byteLength],
    ]);
  });

  test("several input pictures go as image[]", async () => {
    await client.images.edit({
      model: "gpt-image-2",
      prompt: "combine them",
      image: [
        await toFile(PNG_PIXEL, "a.png", { type: "image/png" }),
        await toFile(PNG_PIXEL, "b.png", { type: "image/png" }),
      ],
    });
    expect(fake.requests.at(-1)!.files.map((f) => f.name)).toEqual(["image[]", "image[]"]);
  });

  test("a wrong key: 401 invalid_api_key with the key masked", async () => {
    const other = new OpenAI({ apiKey: "sk-wrong-key-000000000", baseURL: fake.baseUrl, maxRetries: 0 });
    const error = await other.images.generate({ model: "gpt-image-2", prompt: "x" }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.code).toBe("invalid_api_key");
    expect(error.message).toContain("Incorrect API key provided: sk-");
    expect(error.message).not.toContain("sk-wrong-key-000000000");
  });

  test("response_format on a GPT image model: 400 unknown_parameter", async () => {
    const error = await client.images
      .generate({ model: "gpt-image-2", prompt: "x", response_format: "b64_json" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe("response_format");
  });

  test("an edit whose image is no picture: 400 invalid_image_file", async () => {
    const error = await client.images
      .edit({ model: "gpt-image-2", prompt: "x", image: await toFile(Buffer.from("not pixels"), "x.png") })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.code).toBe("invalid_image_file");
  });
});
