import { expect, test } from "bun:test";
import { forgetAuth } from "../../src/auth/forget-route.ts";
import { onForgetProfile } from "../../src/auth/held-tokens.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();

const post = (body: unknown) =>
  new Request("http://fermix/v1/auth/forget", { method: "POST", body: JSON.stringify(body) });

test("POST /v1/auth/forget tells every holder, and refuses an unknown profile", async () => {
  const told: string[] = [];
  defer(onForgetProfile((p) => told.push(p)));
  defer(
    onForgetProfile(() => {
      throw new Error("a holder that fails does not stop the others");
    }),
  );
  const res = await forgetAuth(post({ profile: "xai_oauth" }));
  expect(await res.json()).toEqual({ ok: true, profile: "xai_oauth" });
  expect(told).toEqual(["xai_oauth"]);
  await expect(forgetAuth(post({ profile: "github" }))).rejects.toThrow(/openai_codex, anthropic_oauth, xai_oauth/);
});
