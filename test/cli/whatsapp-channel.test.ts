import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createJobStore } from "../../src/jobs/job-store.ts";
import { openDatabase } from "../../src/memory/db.ts";
import { startFakeWhatsApp, waText } from "../fake/whatsapp-graph-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { type TempHome, tempHome } from "../fixture/home.ts";
import { freePort, OWNER, startWhatsAppWorld } from "../gateway/_whatsapp-daemon.ts";
import { draft } from "../jobs/_fixture.ts";

/*
 * The operations side of the WhatsApp channel and of the webhook port, through the compiled binary: what answers
 * on the port (only the webhook routes), `fermix channels status`, doctor's rows, a port already taken, the
 * WHATSAPP_* overlays, a job delivered to whatsapp:<wa_id>, and `fermix setup --channel whatsapp`.
 */

const defer = cleanupAfterEach();

type Row = { id: string; title: string; status: string; detail: string; fix?: string };
const doctorRows = async (env: Record<string, string>) => {
  const r = await runFermix(["doctor", "--json"], { env });
  return { code: r.code, rows: JSON.parse(r.stdout).result.rows as Row[], stdout: r.stdout };
};

describe("the webhook port", () => {
  test("answers Meta's handshake and signed deliveries, and nothing else: every other path is a 404", async () => {
    const { wa, port, url } = await startWhatsAppWorld(defer);
    const verified = await wa.verifySubscription(url, { challenge: "1158201444" });
    expect(verified.status).toBe(200);
    expect(verified.headers.get("content-type")).toStartWith("text/plain");
    expect(await verified.text()).toBe("1158201444");
    const wrong = await wa.verifySubscription(url, { verifyToken: "not-the-token" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: "Unauthorized" });
    expect((await fetch(`${url}?hub.challenge=1`)).status).toBe(400);

    // Signed, but not a WhatsApp delivery: 400, as the facts answer a bad payload.
    for (const raw of ["not json", JSON.stringify({ object: "page", entry: [] })]) {
      const answer = await wa.deliver(url, undefined, { raw });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ error: "Invalid webhook" });
    }

    const base = `http://127.0.0.1:${port}`;
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/setup"],
      ["GET", "/health"],
      ["GET", "/v1/status"],
      ["GET", "/v1/channels"],
      ["POST", "/v1/ask"],
      ["POST", "/webhook/slack"],
      ["POST", "/webhook/telegram"],
      ["PUT", "/webhook/whatsapp"],
      ["GET", "/webhook/whatsapp/extra"],
    ] as const) {
      const answer = await fetch(`${base}${path}`, { method, ...(method === "GET" ? {} : { body: "{}" }) });
      expect([path, answer.status]).toEqual([path, 404]);
      expect(await answer.json()).toEqual({ error: "Not found" });
    }
  });

  test("`fermix channels status` and doctor show the channel and the listening port; secrets from WHATSAPP_*", async () => {
    const { env, port, wa } = await startWhatsAppWorld(defer, { fromEnv: true });
    const text = await runFermix(["channels", "status"], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(
        `^whatsapp\\tenabled\\trunning\\tconnected\\tno update yet\\nwebhooks\\tlistening\\ton 127.0.0.1:${port}\\n$`,
      ),
    );
    const json = JSON.parse((await runFermix(["channels", "status", "--json"], { env })).stdout);
    expect(json.result.webhooks).toEqual({ state: "listening", port });
    expect(json.result.channels[0]).toMatchObject({ name: "whatsapp", state: "running", connected: true });

    const { rows, stdout } = await doctorRows(env);
    expect(rows.find((r) => r.id === "channels.whatsapp")).toEqual({
      id: "channels.whatsapp",
      title: "channels",
      status: "ok",
      detail: "whatsapp: number +1 555-0100 (Fermix Test); running in the daemon, connected",
    });
    expect(rows.find((r) => r.id === "channels.webhooks")).toEqual({
      id: "channels.webhooks",
      title: "channels",
      status: "ok",
      detail: `webhooks: listening on 127.0.0.1:${port} (GET+POST /webhook/whatsapp); expose this port, and only it, to the platform`,
    });
    for (const secret of [wa.token, wa.appSecret, wa.verifyToken]) expect(stdout + text.stdout).not.toContain(secret);
  });

  test("a port already taken: the daemon starts anyway; status and doctor say so, with the fix", async () => {
    const port = await freePort();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", () => resolve()));
    defer(() => new Promise<void>((resolve) => holder.close(() => resolve())));
    const { env } = await startWhatsAppWorld(defer, { port, expectWebhooks: "failed" });
    const reason = `port ${port} on 127.0.0.1 is in use; set [fermix_web] webhook_port to a free port`;
    const text = await runFermix(["channels", "status"], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`\nwebhooks\tfailed\t${reason}\n`);
    const { code, rows } = await doctorRows(env);
    expect(code).toBe(1);
    expect(rows.find((r) => r.id === "channels.webhooks")).toEqual({
      id: "channels.webhooks",
      title: "channels",
      status: "fail",
      detail: `webhooks: not listening: ${reason}`,
      fix: "set [fermix_web] webhook_port to a free port in config.toml, then fermix restart",
    });
  });

  test("doctor with no daemon: the number is checked with Graph, the port is free; a refused token fails", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const wa = await startFakeWhatsApp();
    defer(() => wa.close());
    const port = await freePort();
    h.writeConfig(
      [
        "[fermix_web]",
        `webhook_port = ${port}`,
        "[fermix_channels.whatsapp]",
        "enabled = true",
        `owner_user_id = "${OWNER}"`,
        `phone_number_id = "${wa.phoneNumberId}"`,
        `app_secret = "${wa.appSecret}"`,
        `verify_token = "${wa.verifyToken}"`,
        `api_base_url = "${wa.baseUrl}"`,
        "",
      ].join("\n"),
    );
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, WHATSAPP_ACCESS_TOKEN: wa.token };
    const ok = await doctorRows(env);
    expect(ok.rows.find((r) => r.id === "channels.whatsapp")).toMatchObject({
      status: "ok",
      detail: "whatsapp: number +1 555-0100 (Fermix Test); the daemon is not running",
    });
    expect(ok.rows.find((r) => r.id === "channels.webhooks")).toMatchObject({
      status: "ok",
      detail: `webhooks: port ${port} on 127.0.0.1 is free; the daemon listens there (GET+POST /webhook/whatsapp) when it runs`,
    });

    const refused = await doctorRows({ ...env, WHATSAPP_ACCESS_TOKEN: "EAAGrevokedTokenValue000000000000" });
    expect(refused.code).toBe(1);
    const row = refused.rows.find((r) => r.id === "channels.whatsapp")!;
    expect(row.status).toBe("fail");
    expect(row.detail).toStartWith(
      "whatsapp: WhatsApp refused the access token (Invalid OAuth access token - Cannot parse access token)",
    );
    expect(row.fix).toContain("fermix setup --channel whatsapp");
    expect(refused.stdout).not.toContain("EAAGrevokedTokenValue000000000000");
  });
});

describe("jobs deliver to whatsapp:<wa_id>", () => {
  test("inside the 24-hour window the answer is sent; outside it the run records WhatsApp's reason", async () => {
    const { h, env, wa, llm, deliver } = await startWhatsAppWorld(defer);
    // The owner wrote in the last 24 hours: their window is open.
    llm.enqueue({ kind: "text", text: "hello back" });
    const hello = wa.waitForSent(OWNER);
    await deliver([waText(OWNER, "hello")]);
    await hello;
    const inside = seedJob(h, OWNER);
    llm.enqueue({ kind: "text", text: "Your scheduled digest: all quiet." });
    const mark = wa.calls.length;
    expect((await runFermix(["jobs", "run", inside], { env })).code).toBe(0);
    const digest = await wa.waitForSent(OWNER, mark);
    expect(digest.body.text.body).toBe("Your scheduled digest: all quiet.");
    expect((await waitForDelivery(env, inside))[0]).toMatchObject({ status: "ok", delivery_status: "sent" });

    const outside = seedJob(h, "15559990000");
    llm.enqueue({ kind: "text", text: "nobody asked" });
    expect((await runFermix(["jobs", "run", outside], { env })).code).toBe(0);
    const [run] = await waitForDelivery(env, outside);
    expect(run).toMatchObject({ status: "ok", delivery_status: "failed" });
    expect(run.delivery_error).toContain("(#131047) Re-engagement message");
  });
});

describe("fermix setup --channel whatsapp", () => {
  test("piped secrets are tested with Graph, stored, and the channel enabled; the Meta steps follow", async () => {
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const wa = await startFakeWhatsApp();
    defer(() => wa.close());
    const env = { FERMIX_HOME: h.home, HOME: h.userHome };
    h.writeConfig(
      `[fermix_core]\nsecret_store = "file"\n\n[fermix_channels.whatsapp]\napi_base_url = "${wa.baseUrl}"\n`,
    );
    const args = ["setup", "--channel", "whatsapp", "--owner-user-id", "+1 555 000 1111", "--secrets-stdin", "--yes"];
    const r = await runFermix([...args, "--phone-number-id", wa.phoneNumberId], {
      env,
      stdin: `${wa.token}\n${wa.appSecret}\n`,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("ok: number +1 555-0100 (Fermix Test)\n");
    const verifyToken = readFileSync(join(h.home, "secrets", "WHATSAPP_VERIFY_TOKEN"), "utf8");
    expect(verifyToken).toMatch(/^[\w-]{32}$/);
    expect(r.stdout).toContain(`  Verify token: ${verifyToken}\n`);
    expect(r.stdout).toContain("/webhook/whatsapp  (the tunnel forwards to 127.0.0.1:4031");
    expect(r.stdout).not.toContain(wa.token);
    expect(r.stdout).not.toContain(wa.appSecret);
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain(
      [
        "[fermix_channels.whatsapp]",
        `api_base_url = "${wa.baseUrl}"`,
        "enabled = true",
        'owner_user_id = "15550001111"',
        `phone_number_id = "${wa.phoneNumberId}"`,
        'access_token = "@keyring"',
        'app_secret = "@keyring"',
        'verify_token = "@keyring"',
      ].join("\n"),
    );
    expect(readFileSync(join(h.home, "secrets", "WHATSAPP_ACCESS_TOKEN"), "utf8")).toBe(wa.token);
    expect(readFileSync(join(h.home, "secrets", "WHATSAPP_APP_SECRET"), "utf8")).toBe(wa.appSecret);

    // A wrong phone number id: Graph does not know it, nothing is written.
    const refused = await runFermix([...args, "--phone-number-id", "999999999999"], {
      env,
      stdin: `${wa.token}\n${wa.appSecret}\n`,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("fermix: WhatsApp refused: WhatsApp does not know phone number id 999999999999");
    expect(readFileSync(join(h.home, "config.toml"), "utf8")).toContain(`phone_number_id = "${wa.phoneNumberId}"`);
  });
});

/** A job delivering to a WhatsApp chat, written into memory.db as the job tools write it (never due by itself). */
function seedJob(h: TempHome, chat: string): string {
  mkdirSync(h.home, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(h.home, "memory.db"));
  const store = createJobStore(db, Date.now);
  const job = store.create(
    draft({ name: `digest-${chat}`, deliveryMode: "channel", deliveryTarget: { platform: "whatsapp", chat_id: chat } }),
    { nextRunAt: Date.parse("2099-01-01T08:00:00Z"), trust: "operator", createdIn: { channel: "cli", chat: "s" } },
  );
  db.close();
  return job.id;
}

/** The job's runs once the newest has left `pending` delivery (the send follows the answer). */
async function waitForDelivery(env: Record<string, string>, jobId: string) {
  for (;;) {
    const r = await runFermix(["jobs", "runs", jobId, "--json"], { env });
    const runs = JSON.parse(r.stdout).result.runs;
    if (runs[0] && runs[0].delivery_status !== "pending" && runs[0].status !== "running") return runs;
  }
}
