import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChannelAdapter, ChannelDeps } from "../../src/channels/channel.ts";
import { fermixPaths } from "../../src/config/paths.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { runChannelSetup, SETUP_CHANNELS } from "../../src/setup/channel-setup.ts";
import type { ChannelSetupFlags } from "../../src/setup/channel-setup-contract.ts";
import type { SetupIo } from "../../src/setup/prompt.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { createTestChannel } from "../fixture/test-channel.ts";
import { noKeyring, pipedIo, scriptedTerminal, snapshot } from "./setup-fixture.ts";

const defer = cleanupAfterEach();
const TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
const OTHER = "987654321:AAEotherTokenValue_abcdefghijklmnop";

/** A FERMIX_HOME using the file store, and a telegram "adapter" whose check accepts only TOKEN. */
function world(toml = '[fermix_core]\nsecret_store = "file"\n') {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(toml);
  const paths = fermixPaths(h.home);
  const tokensChecked: string[] = [];
  const channels = {
    telegram: async (deps: ChannelDeps): Promise<ChannelAdapter> => {
      const token = deps.resolveSecret(deps.config.bot_token, "TELEGRAM_BOT_TOKEN");
      tokensChecked.push(token);
      return createTestChannel({
        name: "telegram",
        check: async () =>
          token === TOKEN
            ? { ok: true, detail: "bot @fermix_test_bot (id 123456789)" }
            : {
                ok: false,
                detail: "Telegram refused the bot token (401 Unauthorized)",
                fix: "the token was revoked or mistyped: copy the current one from @BotFather",
              },
      }).adapter;
    },
  };
  const run = (flags: Partial<ChannelSetupFlags>, io: SetupIo) =>
    runChannelSetup(
      { channel: "telegram", ...flags },
      {
        env: { FERMIX_HOME: h.home, HOME: h.userHome },
        paths,
        io,
        store: createSecretStore({ secretsDir: paths.secrets, platform: "linux", run: noKeyring, prefer: "file" }),
        secretRun: noKeyring,
        channels,
      },
    );
  const config = () => readFileSync(paths.config, "utf8");
  return { h, paths, run, config, tokensChecked };
}

describe("fermix setup --channel telegram", () => {
  test("a piped token and the owner: tested, stored, [fermix_channels.telegram] enabled; a re-run changes nothing", async () => {
    const w = world();
    const piped = pipedIo(`${TOKEN}\n`);
    await w.run({ ownerUserId: "4242", tokenStdin: true }, piped.io);
    expect(w.tokensChecked).toEqual([TOKEN]);
    expect(piped.output()).toContain("ok: bot @fermix_test_bot (id 123456789)\n");
    const secret = join(w.paths.secrets, "TELEGRAM_BOT_TOKEN");
    expect(piped.output()).toContain(
      `bot token: stored in the file store, ${secret} (0600); config.toml points at it with bot_token = "@keyring"\n`,
    );
    expect(piped.output()).toContain("fermix restart");
    expect(readFileSync(secret, "utf8")).toBe(TOKEN);
    expect(w.config()).toBe(
      '[fermix_core]\nsecret_store = "file"\n\n[fermix_channels.telegram]\nenabled = true\nowner_user_id = "4242"\nbot_token = "@keyring"\n',
    );
    for (const content of Object.values(snapshot(w.h.home))) {
      if (!content.endsWith(TOKEN)) expect(content).not.toContain(TOKEN);
    }
    expect(piped.output()).not.toContain(TOKEN);

    // Again, with nothing new: the stored token is tested again and kept; the file stays as it is.
    const before = snapshot(w.h.home);
    const again = pipedIo();
    await w.run({ nonInteractive: true }, again.io);
    expect(again.output()).toContain("bot token: kept the one config.toml already gives\n");
    expect(again.output()).toContain("already holds these answers; unchanged\n");
    expect(snapshot(w.h.home)).toEqual(before);
    expect(w.tokensChecked).toEqual([TOKEN, TOKEN]);
  });

  test("the owner's comments, other keys and an owner written as a number are kept", async () => {
    const w = world(
      '[fermix_core]\nsecret_store = "file"\n\n# my bot\n[fermix_channels.telegram]\nowner_user_id = 4242 # me\napi_base_url = "http://127.0.0.1:9"\n',
    );
    await w.run({ tokenStdin: true, nonInteractive: true }, pipedIo(TOKEN).io);
    expect(w.config()).toBe(
      '[fermix_core]\nsecret_store = "file"\n\n# my bot\n[fermix_channels.telegram]\nowner_user_id = 4242 # me\napi_base_url = "http://127.0.0.1:9"\nenabled = true\nbot_token = "@keyring"\n',
    );
  });

  test("a token Telegram refuses: exit with the fix, nothing written, the token never shown", async () => {
    const w = world();
    const before = snapshot(w.h.home);
    const piped = pipedIo(OTHER);
    const err = await w.run({ ownerUserId: "1", tokenStdin: true }, piped.io).catch((e) => e);
    expect(err.code).toBe("setup_probe_failed");
    expect(err.message).toContain("Telegram refused the bot token (401 Unauthorized)");
    expect(err.message).toContain("nothing was written");
    expect(err.message + piped.output()).not.toContain(OTHER);
    expect(snapshot(w.h.home)).toEqual(before);
  });

  test("--skip-test saves an untested token", async () => {
    const w = world();
    await w.run({ ownerUserId: "1", tokenStdin: true, skipTest: true }, pipedIo(OTHER).io);
    expect(w.tokensChecked).toEqual([]);
    expect(w.config()).toContain('bot_token = "@keyring"');
  });

  test("usage errors name the flag and never echo a token", async () => {
    const w = world();
    const bad = async (flags: Partial<ChannelSetupFlags>, stdin = "") => {
      const err = await w.run(flags, pipedIo(stdin).io).catch((e) => e);
      expect(err.code).toBe("usage");
      return err.message as string;
    };
    expect(await bad({ channel: "carrier_pigeon" })).toBe(
      `setup: --channel takes ${SETUP_CHANNELS.join(", ")} (got "carrier_pigeon")`,
    );
    expect(await bad({ ownerUserId: "@ada" })).toStartWith('setup: --owner-user-id: "@ada" is not a Telegram user id');
    expect(await bad({ tokenStdin: true, ownerUserId: "1" }, `bot${TOKEN}`)).toBe(
      'setup: --bot-token-stdin: the bot token starts with "bot": paste the BotFather token without a bot prefix',
    );
    expect(await bad({ tokenStdin: true, ownerUserId: "1" }, "hunter2")).not.toContain("hunter2");
    expect(await bad({ tokenStdin: true })).toContain("--owner-user-id ID");
    expect(await bad({ ownerUserId: "1" })).toContain("--bot-token-stdin");
  });

  test("on a terminal it asks for the owner, then the token without echo", async () => {
    const w = world();
    const term = scriptedTerminal([
      ["Your Telegram user id", "not-a-number"],
      ["Your Telegram user id", "4242"],
      ["Bot token (from @BotFather)", TOKEN],
    ]);
    await w.run({}, term.io);
    expect(term.output()).toContain('"not-a-number" is not a Telegram user id');
    expect(term.output()).not.toContain(TOKEN);
    expect(term.raw).toEqual([true, false]);
    expect(w.config()).toContain('owner_user_id = "4242"');
  });
});
