import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fermixPaths } from "../../src/config/paths.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { FermixError } from "../../src/error.ts";
import { runChannelSetup } from "../../src/setup/channel-setup.ts";
import type { ChannelSetupFlags } from "../../src/setup/channel-setup-contract.ts";
import type { SetupIo } from "../../src/setup/prompt.ts";
import { startFakeSlack } from "../fake/slack-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { noKeyring, pipedIo, snapshot } from "./setup-fixture.ts";

/*
 * `fermix setup --channel slack` with the real adapter's check against the fake Slack (config.toml's api_base_url
 * points at it), the file store for the secrets.
 */

const defer = cleanupAfterEach();
const OWNER = "U0OWNER001";

async function world() {
  const slack = await startFakeSlack();
  defer(() => slack.close());
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(`[fermix_core]\nsecret_store = "file"\n\n[fermix_channels.slack]\napi_base_url = "${slack.apiUrl}"\n`);
  const paths = fermixPaths(h.home);
  const run = (flags: Partial<ChannelSetupFlags>, io: SetupIo) =>
    runChannelSetup(
      { channel: "slack", ...flags },
      {
        env: { FERMIX_HOME: h.home, HOME: h.userHome },
        paths,
        io,
        store: createSecretStore({ secretsDir: paths.secrets, platform: "linux", run: noKeyring, prefer: "file" }),
        secretRun: noKeyring,
      },
    );
  const config = () => readFileSync(paths.config, "utf8");
  return { slack, h, paths, run, config };
}

async function refusal(promise: Promise<unknown>): Promise<FermixError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(FermixError);
    return err as FermixError;
  }
  throw new Error("expected a refusal");
}

describe("fermix setup --channel slack", () => {
  test("Socket Mode: the piped tokens are tested with Slack, stored, and the table enabled; a re-run keeps them", async () => {
    const w = await world();
    const piped = pipedIo(`${w.slack.botToken}\n${w.slack.appToken}\n`);
    await w.run({ ownerUserId: OWNER, secretsStdin: true }, piped.io);
    expect(piped.output()).toContain(
      "ok: bot @fermix (U0FERMIXBOT) in Fermix Test; the app-level token opens Socket Mode\n",
    );
    expect(w.slack.callsOf("auth.test")).toHaveLength(1);
    expect(w.slack.callsOf("apps.connections.open")).toHaveLength(1);
    expect(readFileSync(join(w.paths.secrets, "SLACK_BOT_TOKEN"), "utf8")).toBe(w.slack.botToken);
    expect(readFileSync(join(w.paths.secrets, "SLACK_APP_TOKEN"), "utf8")).toBe(w.slack.appToken);
    expect(w.config()).toBe(
      [
        "[fermix_core]",
        'secret_store = "file"',
        "",
        "[fermix_channels.slack]",
        `api_base_url = "${w.slack.apiUrl}"`,
        "enabled = true",
        'mode = "socket"',
        `owner_user_id = "${OWNER}"`,
        'bot_token = "@keyring"',
        'app_token = "@keyring"',
        "",
      ].join("\n"),
    );
    expect(piped.output()).toContain(
      "Socket Mode on, and Event Subscriptions on with the bot events message.im and app_mention",
    );
    expect(piped.output()).not.toContain(w.slack.botToken);

    // Again with nothing new: the stored tokens are tested again and kept; the file stays as it is.
    const before = snapshot(w.h.home);
    const again = pipedIo("");
    await w.run({ nonInteractive: true }, again.io);
    expect(again.output()).toContain("already holds these answers; unchanged");
    expect(snapshot(w.h.home)).toEqual(before);
    expect(w.slack.callsOf("auth.test")).toHaveLength(2);
  });

  test("webhook mode takes the signing secret instead and says where Slack's Request URL goes", async () => {
    const w = await world();
    const piped = pipedIo(`${w.slack.botToken}\n${w.slack.signingSecret}\n`);
    await w.run({ ownerUserId: OWNER, secretsStdin: true, mode: "webhook" }, piped.io);
    expect(piped.output()).toContain("ok: bot @fermix (U0FERMIXBOT) in Fermix Test; webhook mode");
    expect(piped.output()).toContain("Request URL: https://<your tunnel>/webhook/slack");
    expect(piped.output()).toContain("127.0.0.1:4031");
    expect(w.config()).toContain('mode = "webhook"\n');
    expect(w.config()).toContain('signing_secret = "@keyring"\n');
    expect(w.config()).not.toContain("app_token");
    expect(w.slack.callsOf("apps.connections.open")).toHaveLength(0);
  });

  test("a token Slack refuses writes nothing and says what to do; malformed answers are refused before any call", async () => {
    const w = await world();
    const before = snapshot(w.h.home);
    const wrong = pipedIo(`${w.slack.botToken}\nxapp-1-A0FERMIX01-1-notTheRightTokenAtAll\n`);
    const failed = await refusal(w.run({ ownerUserId: OWNER, secretsStdin: true }, wrong.io));
    expect(failed.code).toBe("setup_probe_failed");
    expect(failed.message).toContain("Slack refused the app-level token: invalid_auth");
    expect(failed.message).toContain("App-Level Tokens");
    expect(snapshot(w.h.home)).toEqual(before);

    const calls = w.slack.calls.length;
    const swapped = await refusal(
      w.run({ ownerUserId: OWNER, secretsStdin: true }, pipedIo(`${w.slack.appToken}\n${w.slack.botToken}\n`).io),
    );
    expect(swapped.message).toContain("xoxb-");
    expect(swapped.message).not.toContain(w.slack.appToken);
    expect((await refusal(w.run({ ownerUserId: "@me", secretsStdin: true }, pipedIo("").io))).message).toContain(
      "member id",
    );
    expect((await refusal(w.run({ ownerUserId: OWNER, mode: "http" }, pipedIo("").io))).message).toContain("webhook");
    expect(w.slack.calls.length).toBe(calls);
  });
});
