import { expect, test } from "bun:test";
import { createBotApi, TelegramApiError } from "../../../src/channels/telegram/bot-api.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";

const defer = cleanupAfterEach();
const TOKEN = "123456:test-cap-token";
const MB = 1024 * 1024;

test("a getUpdates answer of 200 MB is refused at the 16 MiB cap, unread past it, without the memory growing by it", async () => {
  const chunk = new Uint8Array(MB).fill(0x20);
  let served = 0;
  // A Bot API stand-in that would send 200 MB of a JSON-looking answer, one MiB at a time, as fast as it is read.
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"ok":true,"result":['));
          },
          pull(controller) {
            if (served >= 200 * MB) return controller.close();
            served += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
        { headers: { "content-type": "application/json" } },
      ),
  });
  defer(() => server.stop(true));
  const api = createBotApi({ baseUrl: `http://127.0.0.1:${server.port}`, token: TOKEN });
  const before = process.memoryUsage().rss;
  const refused = await api.call("getUpdates", { timeout: 0 }).catch((err: unknown) => err);
  expect(TelegramApiError.is(refused)).toBe(true);
  expect((refused as Error).message).toBe("Telegram getUpdates answered more than 16 MiB; refused unread");
  expect((refused as Error).message).not.toContain(TOKEN);
  // The stream was cancelled at the cap: the server was asked for a little more than 16 MiB, never 200.
  expect(served).toBeLessThan(40 * MB);
  // A safety net, not the measure: reading it whole would have cost ~200 MB.
  expect(process.memoryUsage().rss - before).toBeLessThan(120 * MB);
});
