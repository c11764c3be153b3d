import { describe, expect, test } from "bun:test";
import { withEnvOverlay } from "../../src/channels/env-overlay.ts";

describe("channel env overlays", () => {
  test("WHATSAPP_* override the table: secrets as env references, ids split on commas, '' an empty list", () => {
    const block = { enabled: true, owner_user_id: "1555", access_token: "@keyring", allowed_sender_ids: ["1"] };
    const env = {
      WHATSAPP_ACCESS_TOKEN: "EAAGtoken",
      WHATSAPP_PHONE_NUMBER_ID: " 106540352242922 ",
      WHATSAPP_ALLOWED_SENDER_IDS: "15550002222, 15550003333,",
    };
    expect(withEnvOverlay("whatsapp", block, env)).toEqual({
      enabled: true,
      owner_user_id: "1555",
      access_token: { source: "env", name: "WHATSAPP_ACCESS_TOKEN" },
      phone_number_id: "106540352242922",
      allowed_sender_ids: ["15550002222", "15550003333"],
    });
    expect(withEnvOverlay("whatsapp", block, { WHATSAPP_ALLOWED_SENDER_IDS: "" }).allowed_sender_ids).toEqual([]);
    // An empty secret variable is no override.
    expect(withEnvOverlay("whatsapp", block, { WHATSAPP_ACCESS_TOKEN: "" }).access_token).toBe("@keyring");
    expect(block.access_token).toBe("@keyring");
  });

  test("a platform without overlays takes nothing from the environment (never a Telegram bot token)", () => {
    const block = { bot_token: "@keyring" };
    expect(withEnvOverlay("telegram", block, { TELEGRAM_BOT_TOKEN: "1:x", WHATSAPP_ACCESS_TOKEN: "y" })).toBe(block);
  });
});
