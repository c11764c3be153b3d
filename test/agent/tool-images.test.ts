import { describe, expect, test } from "bun:test";
import { showToolImages } from "../../src/agent/tool-images.ts";
import type { ImagePart, Message } from "../../src/providers/types.ts";

const image = (n: number): ImagePart => ({ type: "image", mime: "image/png", data: `image-${n}` });
const kept = (messages: Message[]) =>
  messages.flatMap((m) => (m.role === "user" ? m.content.filter((p) => p.type === "image") : [])).map((p) => p.data);
const placeholders = (messages: Message[]) =>
  messages.filter((m) => m.role === "user" && JSON.stringify(m).includes("an earlier tool image was here")).length;

describe("tool images in a turn", () => {
  test("by default only the latest batch keeps its bytes", () => {
    const messages: Message[] = [];
    for (let n = 1; n <= 3; n++) showToolImages.attach(messages, [image(n)]);
    expect(kept(messages)).toEqual(["image-3"]);
    expect(placeholders(messages)).toBe(2);
  });

  test("computer_use's max_retained_screenshots keeps the last N; older ones become the placeholder", () => {
    const messages: Message[] = [];
    for (let n = 1; n <= 5; n++) showToolImages.attach(messages, [image(n)], 3);
    expect(kept(messages)).toEqual(["image-3", "image-4", "image-5"]);
    expect(placeholders(messages)).toBe(2);
  });
});
