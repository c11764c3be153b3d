import { describe, expect, test } from "bun:test";
import { channelsCheck } from "../../src/doctor/channels-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { startFakeSlack } from "../fake/slack-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

/* Doctor's Slack row with the real adapter against the fake Slack: auth.test, and the app-level token tried. */

const defer = cleanupAfterEach();

async function slackRows(
  toml: (apiUrl: string) => string,
  env: (s: Awaited<ReturnType<typeof startFakeSlack>>) => Record<string, string>,
) {
  const slack = await startFakeSlack();
  defer(() => slack.close());
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  h.writeConfig(toml(slack.apiUrl));
  const result = await runDoctor(doctorDeps(h, { env: env(slack) }), [channelsCheck]);
  return { slack, rows: result.rows, text: JSON.stringify(result) };
}

describe("doctor: the Slack channel", () => {
  test("tokens from the environment overlays check out: the bot named, the app-level token tried", async () => {
    const { slack, rows, text } = await slackRows(
      (api) => `[fermix_channels.slack]\nenabled = true\nowner_user_id = "U0OWNER001"\napi_base_url = "${api}"\n`,
      (s) => ({ SLACK_BOT_TOKEN: s.botToken, SLACK_APP_TOKEN: s.appToken }),
    );
    expect(rows).toEqual([
      {
        id: "channels.slack",
        title: "channels",
        status: "ok",
        detail:
          "slack: bot @fermix (U0FERMIXBOT) in Fermix Test; the app-level token opens Socket Mode; the daemon is not running",
      },
    ]);
    expect(slack.callsOf("apps.connections.open")).toHaveLength(1);
    expect(text).not.toContain(slack.botToken);
  });

  test("a revoked bot token fails the row with the fix; webhook mode adds the webhook port's row", async () => {
    const { slack, rows, text } = await slackRows(
      (api) =>
        `[fermix_channels.slack]\nenabled = true\nmode = "webhook"\nowner_user_id = "U0OWNER001"\napi_base_url = "${api}"\n`,
      (s) => {
        s.failNext("auth.test", { error: "token_revoked" });
        return { SLACK_BOT_TOKEN: s.botToken, SLACK_SIGNING_SECRET: s.signingSecret };
      },
    );
    expect(rows[0]).toMatchObject({
      id: "channels.slack",
      status: "fail",
      detail: "slack: Slack refused the bot token: token_revoked; the daemon is not running",
    });
    expect(rows[0]!.fix).toContain("OAuth & Permissions");
    // The adapter registered its route, so the webhook port gets its row (free or taken, depending on the machine).
    expect(rows[1]!.id).toBe("channels.webhooks");
    expect(text).not.toContain(slack.signingSecret);
  });
});
