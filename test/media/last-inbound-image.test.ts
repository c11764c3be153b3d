import { describe, expect, test } from "bun:test";
import { createLastImages, LAST_IMAGE_CHATS, LAST_IMAGE_TTL_MS } from "../../src/media/last-inbound-image.ts";

const picture = (n: number) => ({ mime: "image/jpeg", data: new Uint8Array([0xff, 0xd8, 0xff, n]) });

describe("the last picture each chat sent (generate_image's inbound:last)", () => {
  test("the newest picture of a chat replaces the older one; other chats keep theirs", () => {
    const images = createLastImages(() => 0);
    images.remember("a", picture(1));
    images.remember("b", picture(2));
    images.remember("a", picture(3));
    expect(images.get("a")?.data[3]).toBe(3);
    expect(images.get("b")?.data[3]).toBe(2);
    expect(images.get("c")).toBeUndefined();
  });

  test("a picture older than the time limit is forgotten", () => {
    let now = 1_000;
    const images = createLastImages(() => now);
    images.remember("a", picture(1));
    now += LAST_IMAGE_TTL_MS;
    expect(images.get("a")).toBeDefined();
    now += 1;
    expect(images.get("a")).toBeUndefined();
  });

  test("past the chat limit the least recently sent chat is forgotten first", () => {
    const images = createLastImages(() => 0);
    for (let i = 0; i <= LAST_IMAGE_CHATS; i++) images.remember(`chat-${i}`, picture(i));
    expect(images.get("chat-0")).toBeUndefined();
    expect(images.get("chat-1")).toBeDefined();
    expect(images.get(`chat-${LAST_IMAGE_CHATS}`)).toBeDefined();
  });
});
