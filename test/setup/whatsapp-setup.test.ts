import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChannelAdapter, ChannelDeps } from "../../src/channels/channel.ts";
import { fermixPaths } from "../../src/config/paths.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { runChannelSetup } from "../../src/setup/channel-setup.ts";
import type { ChannelSetupFlags } from "../../src/setup/channel-setup-contract.ts";
import type { SetupIo } from "../../src/setup/prompt.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { createTestChannel } from "../fixture/test-channel.ts";
import { noKeyring, pipedIo, scriptedTerminal } from "./setup-fixture.ts";

const defer = cleanupAfterEach();
const TOKEN = "EAAGpermanentTokenForSetupTests0123456789";
const SECRET = "0123456789abcdef0123456789abcdef";
const PHONE_ID = "106540352242922";

/** A FERMIX_HOME on the file store, and a whatsapp "adapter" whose check accepts only TOKEN for PHONE_ID. */
function world() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig('[fermix_core]\nsecret_store = "file"\n');
  const paths = fermixPaths(h.home);
  const checked: Array<{ token: string; phone: unknown }> = [];
  const channels = {
    whatsapp: async (deps: ChannelDeps): Promise<ChannelAdapter> => {
      const token = deps.resolveSecret(deps.config.access_token, "WHATSAPP_ACCESS_TOKEN");
      checked.push({ token, phone: deps.config.phone_number_id });
      return createTestChannel({
        name: "whatsapp",
        check: async () =>
          token === TOKEN && deps.config.phone_number_id === PHONE_ID
            ? { ok: true, detail: "number +1 555-0100 (Fermix Test)" }
            : { ok: false, detail: "WhatsApp refused the access token", fix: "make a permanent one" },
      }).adapter;
    },
  };
  const run = (flags: Partial<ChannelSetupFlags>, io: SetupIo) =>
    runChannelSetup(
      { channel: "whatsapp", ...flags },
      {
        env: { FERMIX_HOME: h.home, HOME: h.userHome },
        paths,
        io,
        store: createSecretStore({ secretsDir: paths.secrets, platform: "linux", run: noKeyring, prefer: "file" }),
        secretRun: noKeyring,
        channels,
      },
    );
  return { h, paths, run, checked, config: () => readFileSync(paths.config, "utf8") };
}

describe("fermix setup --channel whatsapp", () => {
  test("asked on a terminal: the numbers, then both secrets without echo; a re-run keeps them with Enter", async () => {
    const w = world();
    const first = scriptedTerminal([
      ["Your own WhatsApp number", "+1 (555) 000-1111"],
      ["Phone number ID", PHONE_ID],
      ["Permanent access token: ", TOKEN],
      ["App secret: ", SECRET],
    ]);
    await w.run({}, first.io);
    expect(first.output()).toContain("ok: number +1 555-0100 (Fermix Test)");
    expect(first.output()).not.toContain(TOKEN);
    expect(first.output()).not.toContain(SECRET);
    expect(w.config()).toBe(
      '[fermix_core]\nsecret_store = "file"\n\n[fermix_channels.whatsapp]\nenabled = true\nowner_user_id = "15550001111"\nphone_number_id = "106540352242922"\naccess_token = "@keyring"\napp_secret = "@keyring"\nverify_token = "@keyring"\n',
    );
    const verify = readFileSync(join(w.paths.secrets, "WHATSAPP_VERIFY_TOKEN"), "utf8");
    expect(first.output()).toContain(`Verify token: ${verify}`);

    const again = scriptedTerminal([
      ["(15551234567) [15550001111]", ""],
      ["Phone number ID (WhatsApp > API Setup) [106540352242922]", ""],
      ["Permanent access token (Enter keeps the configured one)", ""],
      ["App secret (Enter keeps the configured one)", ""],
    ]);
    await w.run({}, again.io);
    expect(again.output()).toContain("already holds these answers; unchanged");
    // The verify token Meta knows is kept, never replaced by a new one.
    expect(readFileSync(join(w.paths.secrets, "WHATSAPP_VERIFY_TOKEN"), "utf8")).toBe(verify);
    expect(w.checked.map((c) => c.token)).toEqual([TOKEN, TOKEN]);
  });

  test("piped: a refused token writes nothing; flags that belong to other channels are refused", async () => {
    const w = world();
    const before = w.config();
    await expect(
      w.run(
        { ownerUserId: "15550001111", phoneNumberId: PHONE_ID, secretsStdin: true, nonInteractive: true },
        pipedIo(`EAAGsomeOtherTokenThatIsWrong00000000\n${SECRET}\n`).io,
      ),
    ).rejects.toThrow("WhatsApp refused: WhatsApp refused the access token");
    expect(w.config()).toBe(before);
    await expect(w.run({ tokenStdin: true }, pipedIo("").io)).rejects.toThrow("--secrets-stdin");
    await expect(w.run({ ownerUserId: "12" }, pipedIo("").io)).rejects.toThrow(
      '"12" is not a WhatsApp number (digits with the country code, such as 15551234567)',
    );
    await expect(w.run({ ownerUserId: "15550001111", nonInteractive: true }, pipedIo("").io)).rejects.toThrow(
      "setup: give --phone-number-id ID",
    );
  });
});
