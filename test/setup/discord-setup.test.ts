import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fermixPaths } from "../../src/config/paths.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { runChannelSetup } from "../../src/setup/channel-setup.ts";
import type { ChannelSetupFlags } from "../../src/setup/channel-setup-contract.ts";
import type { SetupIo } from "../../src/setup/prompt.ts";
import { startFakeDiscord } from "../fake/discord-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { noKeyring, pipedIo, scriptedTerminal, snapshot } from "./setup-fixture.ts";

const defer = cleanupAfterEach();
const OWNER = "111111111111111111";

/** A FERMIX_HOME using the file store, whose discord table points at the fake Discord. */
async function world() {
  const dc = await startFakeDiscord();
  defer(() => dc.close());
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(
    `[fermix_core]\nsecret_store = "file"\n\n[fermix_channels.discord]\napi_base_url = "${dc.baseUrl}" # the fake\n`,
  );
  const paths = fermixPaths(h.home);
  const run = (flags: Partial<ChannelSetupFlags>, io: SetupIo) =>
    runChannelSetup(
      { channel: "discord", ...flags },
      {
        env: { FERMIX_HOME: h.home, HOME: h.userHome },
        paths,
        io,
        store: createSecretStore({ secretsDir: paths.secrets, platform: "linux", run: noKeyring, prefer: "file" }),
        secretRun: noKeyring,
      },
    );
  const config = () => readFileSync(paths.config, "utf8");
  return { dc, h, paths, run, config };
}

describe("fermix setup --channel discord", () => {
  test("a piped token and the owner: tested with /users/@me, stored, the table enabled with the bot's id", async () => {
    const w = await world();
    const piped = pipedIo(`${w.dc.token}\n`);
    await w.run({ ownerUserId: OWNER, tokenStdin: true }, piped.io);
    const asked = w.dc.callsOf("GET /users/@me");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.headers.authorization).toBe(`Bot ${w.dc.token}`);
    expect(piped.output()).toContain(`ok: bot fermix-test (id ${w.dc.bot.id})\n`);
    const secret = join(w.paths.secrets, "DISCORD_BOT_TOKEN");
    expect(readFileSync(secret, "utf8")).toBe(w.dc.token);
    expect(w.config()).toBe(
      `[fermix_core]\nsecret_store = "file"\n\n[fermix_channels.discord]\napi_base_url = "${w.dc.baseUrl}" # the fake\nenabled = true\nowner_user_id = "${OWNER}"\nbot_user_id = "${w.dc.bot.id}"\nbot_token = "@keyring"\n`,
    );
    expect(piped.output()).toContain(
      `https://discord.com/oauth2/authorize?client_id=${w.dc.bot.id}&scope=bot&permissions=274878008384`,
    );
    expect(piped.output()).toContain("MESSAGE CONTENT INTENT");
    expect(piped.output()).not.toContain(w.dc.token);
    for (const content of Object.values(snapshot(w.h.home))) {
      if (!content.endsWith(w.dc.token)) expect(content).not.toContain(w.dc.token);
    }

    // Again with nothing new: the stored token is tested again and kept; the file stays as it is.
    const before = snapshot(w.h.home);
    const again = pipedIo();
    await w.run({ nonInteractive: true }, again.io);
    expect(again.output()).toContain("bot token: kept the one config.toml already gives\n");
    expect(again.output()).toContain("already holds these answers; unchanged\n");
    expect(snapshot(w.h.home)).toEqual(before);
  });

  test("on a terminal: the owner id is asked again until it is one, the token typed without echo", async () => {
    const w = await world();
    const term = scriptedTerminal([
      ["Your Discord user id", "@owner"],
      ["Your Discord user id", OWNER],
      ["Bot token", w.dc.token],
    ]);
    await w.run({}, term.io);
    expect(term.output()).toContain('"@owner" is not a Discord user id');
    expect(term.raw).toContain(true);
    expect(term.output()).not.toContain(w.dc.token);
    expect(w.config()).toContain(`owner_user_id = "${OWNER}"`);
  });

  test("a token Discord refuses: the fix, nothing written, the token never shown", async () => {
    const w = await world();
    const wrong = "MTExMTExMTExMTExMTExMTEx.Grevok.revoked_token_revoked_token_revoked";
    const before = snapshot(w.h.home);
    const piped = pipedIo(wrong);
    const err = await w.run({ ownerUserId: OWNER, tokenStdin: true }, piped.io).catch((e) => e);
    expect(err.code).toBe("setup_probe_failed");
    expect(err.message).toContain("Discord refused the bot token (HTTP 401)");
    expect(err.message).toContain("Reset Token");
    expect(err.message).toContain("nothing was written");
    expect(err.message + piped.output()).not.toContain(wrong);
    expect(snapshot(w.h.home)).toEqual(before);
  });

  test("usage errors name the flag and never echo a token", async () => {
    const w = await world();
    const bad = await w.run({ ownerUserId: "12", tokenStdin: true }, pipedIo(w.dc.token).io).catch((e) => e);
    expect(bad.message).toContain("--owner-user-id");
    const prefixed = await w
      .run({ ownerUserId: OWNER, tokenStdin: true }, pipedIo(`Bot ${w.dc.token}`).io)
      .catch((e) => e);
    expect(prefixed.message).toContain('starts with "Bot "');
    expect(prefixed.message).not.toContain(w.dc.token);
    const foreign = await w.run({ ownerUserId: OWNER, account: "+15550001111" }, pipedIo().io).catch((e) => e);
    expect(foreign.message).toContain("--account and --cli-path go with --channel signal");
    expect(w.dc.callsOf("GET /users/@me")).toHaveLength(0);
  });
});
