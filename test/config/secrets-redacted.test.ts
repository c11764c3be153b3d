import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { startFakeCodex } from "../fake/codex.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { startFakeMcpHttpServer } from "../fake/mcp-http-server.ts";
import { startFakeProviderOAuth } from "../fake/provider-oauth.ts";
import { exaError, fakeExa } from "../fake/search-apis.ts";
import { startFakeTelegram, textMessage, voiceMessage } from "../fake/telegram-bot-api.ts";
import { startFakeTranscription } from "../fake/transcription-api.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { type CliResult, runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { writePlugin } from "../fixture/plugin-folder.ts";
import { echoToolOutputs } from "../fixture/tool-outputs.ts";
import { createLoopbackDoor, useFakeServers } from "../net/loopback-door.ts";

/*
 * Issue 26, item 8: every secret the process resolves is registered once (src/config/secret-registry.ts) and
 * redacted from whatever leaves it. One secret of each kind is seeded — none of them shaped like a vendor's key, so
 * only the registry can know them — and hostile peers quote each back: the provider and the ChatGPT backend in
 * their error bodies, the token endpoint in its error_description, the Bot API in its error descriptions, the MCP
 * server in its refusal, the transcription and search services in theirs. Then the whole of FERMIX_HOME's logs
 * and traces, every CLI's stdout and stderr, the daemon's stderr and what the bot sent to the chat must hold none
 * of them. (A plugin's API is on a public host, which only the guarded door reaches: its key and grant are shown
 * through the composition root in-process, below.)
 */

const defer = cleanupAfterEach();
const serve = useFakeServers();
const OWNER = 1001;
const ACCOUNT = "acct-secrets-e2e";
const OGG = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 0, 2, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9]);

/** A value no vendor pattern in redact.ts matches: only the registry can catch it. */
const seed = (label: string) => `${label}${crypto.randomUUID().replaceAll("-", "")}`;

/** A ChatGPT access token as the real one is shaped: a JWT whose claims carry the account id. */
function chatgptToken(): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const claims = { "https://api.openai.com/auth": { chatgpt_account_id: ACCOUNT }, exp: 4_102_444_800 };
  return `${part({ alg: "RS256", typ: "JWT" })}.${part({ ...claims, jti: seed("jti") })}.${seed("sig")}`;
}

/** Which of `secrets` each sink holds, as "<kind> in <where>". */
function leaksIn(secrets: Record<string, string>, sinks: Array<{ where: string; text: string }>): string[] {
  return sinks.flatMap(({ where, text }) =>
    Object.entries(secrets)
      .filter(([, value]) => text.includes(value))
      .map(([kind]) => `${kind} in ${where}`),
  );
}

/**
 * Resolves once the daemon has recorded the MCP server `name` as quarantined in its state file, woken by the
 * file's atomic replacement in `dir` (each write renames a fresh temp file, so no event is merged away).
 */
async function waitForQuarantine(dir: string, name: string): Promise<void> {
  const quarantined = () => {
    try {
      return JSON.parse(readFileSync(join(dir, `mcp_${name}.state.json`), "utf8")).state === "quarantined";
    } catch {
      return false;
    }
  };
  mkdirSync(dir, { recursive: true });
  await new Promise<void>((resolve) => {
    const watcher = watch(dir, () => {
      if (!quarantined()) return;
      watcher.close();
      resolve();
    });
    // Recorded before the watch started: nothing more will change.
    if (quarantined()) {
      watcher.close();
      resolve();
    }
  });
}

/** Every file under `dir`, as text. */
function readTree(dir: string): Array<{ file: string; text: string }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? readTree(path) : [{ file: path, text: readFileSync(path, "utf8") }];
  });
}

describe("secrets are registered once and redacted everywhere (compiled binary)", () => {
  test("no seeded secret of any kind reaches a log line, a trace, an error, CLI output or a chat", async () => {
    const secrets = {
      providerKey: seed("prv"),
      accessToken: chatgptToken(),
      refreshToken: seed("rfr"),
      telegramToken: `42:${seed("tgm")}`,
      mcpToken: seed("mcp"),
      transcriptionKey: seed("stt"),
      searchKey: seed("srch"),
    };

    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const llm = await startFakeOpenAIResponses();
    defer(() => llm.close());
    // The provider refuses the request and quotes the key whole in its error body.
    llm.setDefault({
      kind: "error",
      status: 400,
      message: `The API key ${secrets.providerKey} does not have access to this model.`,
    });
    const codex = await startFakeCodex({ accessToken: secrets.accessToken, accountId: ACCOUNT });
    defer(() => codex.close());
    codex.setDefault({ kind: "error", status: 401, message: `token ${secrets.accessToken} has been revoked` });
    const oauth = startFakeProviderOAuth();
    defer(() => oauth.close());
    const tg = await startFakeTelegram({ token: secrets.telegramToken, bot: { id: 42, username: "fermix_test_bot" } });
    defer(() => tg.close());
    const mcp = await startFakeMcpHttpServer({ bearer: "the-one-the-server-wants" });
    defer(() => mcp.close());
    const stt = await startFakeTranscription({ flavor: "openai", apiKey: secrets.transcriptionKey });
    defer(() => stt.close());
    const exa = fakeExa({
      apiKey: secrets.searchKey,
      answer: () => exaError(402, `no credits left on ${secrets.searchKey}`),
    });
    const search = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: exa.handle });
    defer(() => search.stop(true));

    h.writeConfig(
      [
        "[fermix_core.providers.openai]",
        "primary = true",
        `base_url = "${llm.baseUrl}"`,
        "[fermix_core.providers.openai_codex]",
        `base_url = "${codex.baseUrl}"`,
        "[fermix_core.tools.web_search]",
        'backend = "exa"',
        'api_key = "$SEEDED_SEARCH_KEY"',
        "[fermix_core.transcription]",
        'backend = "openai"',
        `base_url = "${stt.baseUrl}"`,
        `openai_api_key = "${secrets.transcriptionKey}"`,
        "[mcp.servers.hostile]",
        `url = "${mcp.url}"`,
        `headers = { Authorization = "Bearer ${secrets.mcpToken}" }`,
        "[fermix_channels.telegram]",
        "enabled = true",
        'bot_token = "@keyring"',
        `owner_user_id = ${OWNER}`,
        `api_base_url = "${tg.baseUrl}"`,
        'streaming = "off"',
        "[fermix_web]",
        "enabled = false",
        "",
      ].join("\n"),
    );
    // The bot token in the file store, as `fermix setup --channel telegram` leaves it.
    mkdirSync(join(h.home, "secrets"), { recursive: true, mode: 0o700 });
    writeFileSync(join(h.home, "secrets", "TELEGRAM_BOT_TOKEN"), secrets.telegramToken, { mode: 0o600 });
    // auth.json as `fermix auth login --provider codex` leaves it, its access token refused by now.
    const profile = {
      auth_mode: "oauth_pkce",
      tokens: { access_token: secrets.accessToken, refresh_token: secrets.refreshToken },
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      status: "ready",
    };
    writeFileSync(join(h.home, "auth.json"), JSON.stringify({ version: 2, providers: { openai_codex: profile } }), {
      mode: 0o600,
    });

    const env = {
      FERMIX_HOME: h.home,
      HOME: h.userHome,
      OPENAI_API_KEY: secrets.providerKey,
      SEEDED_SEARCH_KEY: secrets.searchKey,
      FERMIX_TEST_SEARCH_EXA: `http://127.0.0.1:${search.port}`,
      FERMIX_TEST_OAUTH_BASE_URL: oauth.base,
      // Whole prompts, answers and tool output in the traces: the most a trace can carry.
      FERMIX_TRACE_CONTENT: "1",
    };
    const outputs: Array<{ what: string; result: CliResult }> = [];
    const fermixWith = async (overrides: Record<string, string | undefined>, ...args: string[]) => {
      const result = await runFermix(args, { env: { ...env, ...overrides } });
      outputs.push({ what: `fermix ${args.join(" ")}`, result });
      return result;
    };
    const fermix = (...args: string[]) => fermixWith({}, ...args);

    // One-shot, no daemon: the provider's refusal quoting the key, then the signed-in provider alone (no API key
    // for the fallback) whose backend quotes the access token and whose token endpoint, failing every try of
    // the refresh, quotes the refresh token: that is the error the CLI prints.
    const oneShot = await fermix("ask", "--no-daemon", "hello");
    expect(oneShot.code).not.toBe(0);
    oauth.failNext(500, 12, (form) => `could not rotate ${form.refresh_token ?? "(none)"}`);
    const signedIn = await fermixWith(
      { OPENAI_API_KEY: undefined },
      "ask",
      "--no-daemon",
      "--provider",
      "openai_codex",
      "hello",
    );
    expect(signedIn.code).not.toBe(0);
    expect(signedIn.stderr).toContain("could not rotate [REDACTED:secret]");

    // Doctor, before the daemon: every provider probed, the bot's token checked with getMe (refused, quoted),
    // one test clip to the transcription service (refused, quoted).
    tg.failNext("getMe", { status: 401, description: `Unauthorized: the token ${secrets.telegramToken} was revoked` });
    stt.enqueue({ kind: "error", status: 401, message: `Incorrect API key provided: ${secrets.transcriptionKey}` });
    const doctor = await fermix("doctor", "--full");
    expect(doctor.stdout).toContain("Incorrect API key provided: [REDACTED:secret]");

    // The daemon: the Bot API fails a poll quoting the token in its description, the MCP server refuses the
    // bearer at every reconnect, a voice note's transcription is refused, an ask runs web_search against a search
    // API that quotes its key and then meets the provider's refusal, and so does a chat message.
    tg.failNext("getUpdates", {
      status: 502,
      description: `Bad Gateway: upstream timed out on /bot${secrets.telegramToken}/getUpdates`,
    });
    const polling = tg.waitForCall("getUpdates", (c) => c.params.timeout === 50);
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    await polling;

    stt.enqueue({ kind: "error", status: 401, message: `Incorrect API key provided: ${secrets.transcriptionKey}` });
    const voiceReply = tg.waitForCall("sendMessage", (c) => c.params.chat_id === OWNER);
    tg.pushUpdate(voiceMessage({ chatId: OWNER, fromId: OWNER, file: tg.addFile(OGG) }));
    await (await voiceReply).answered;

    llm.enqueue({ kind: "tool_calls", calls: [{ name: "web_search", arguments: { query: "fermix" } }] });
    const viaDaemon = await fermix("ask", "--daemon", "look fermix up");
    expect(viaDaemon.code).not.toBe(0);
    expect(exa.seen.length).toBeGreaterThan(0);

    const textReply = tg.waitForCall("sendMessage", (c) => c.params.chat_id === OWNER && c.params.text !== undefined);
    tg.pushUpdate(textMessage({ chatId: OWNER, fromId: OWNER, text: "are you there?" }));
    await (await textReply).answered;

    // The MCP server is quarantined once its discovery attempts are spent; its reason quotes the refusal, and the
    // daemon hands that reason to status and doctor in a CLI process that never resolved the bearer itself.
    await waitForQuarantine(join(h.home, "mcp", "servers"), "hostile");

    await fermix("status", "--json");
    const doctorWithDaemon = await fermix("doctor");
    expect(doctorWithDaemon.stdout).toContain("the token [REDACTED:secret] is not valid for this server");
    await daemon.stop();

    const sinks = [
      ...outputs.flatMap(({ what, result }) => [
        { where: `${what} (stdout)`, text: result.stdout },
        { where: `${what} (stderr)`, text: result.stderr },
      ]),
      { where: "the daemon's stderr", text: daemon.stderr() },
      ...readTree(join(h.home, "logs")).map(({ file, text }) => ({ where: file, text })),
      ...readTree(join(h.home, "traces")).map(({ file, text }) => ({ where: file, text })),
      ...tg.calls.map((c) => ({ where: `Bot API ${c.method}`, text: JSON.stringify(c.params ?? {}) })),
    ];
    expect(leaksIn(secrets, sinks)).toEqual([]);
    // And they did get there: the log and the traces show the registry's marker where a peer quoted one.
    const marked = (where: (w: string) => boolean) =>
      sinks.some((s) => where(s.where) && s.text.includes("[REDACTED:secret]"));
    expect(marked((w) => w.endsWith("fermix.log"))).toBe(true);
    expect(marked((w) => w.includes("/traces/"))).toBe(true);
  }, 120_000);
});

describe("plugin credentials are registered once and redacted everywhere (the composition root)", () => {
  // A plugin's API lives on a public host, which the compiled binary only reaches through the guarded door; here the
  // app is built in-process, as the daemon builds it, with that door's last hop pointed at a loopback fake.
  test("a plugin's API key and a plugin's OAuth grant, quoted back by their APIs, reach no log, trace or answer", async () => {
    const secrets = { pluginKey: seed("plg"), grantAccess: seed("gac"), clientSecret: seed("cls") };
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const llm = await startFakeOpenAIResponses();
    defer(() => llm.close());
    // The model reads each tool's answer back to the owner: whatever a tool returns is shown.
    echoToolOutputs(llm);
    // Both APIs refuse the request and quote the credential they were sent, whole.
    const api = serve((request) => {
      const given = (request.headers.get("authorization") ?? "").replace(/^Bearer /, "");
      const path = new URL(request.url).pathname;
      return Response.json({ message: `credential ${given} may not read ${path}` }, { status: 400 });
    });
    const door = createLoopbackDoor({
      names: { "api.keyed.example": ["54.192.10.21"], "api.granted.example": ["54.192.10.22"] },
      routes: { "54.192.10.21": api.origin, "54.192.10.22": api.origin },
    });
    const root = join(h.userHome, "plugins");
    const tool = (name: string, host: string) => ({
      name: `${name}_get_item`,
      description: "Read one item.",
      read_only: true,
      parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      request: { url: `https://${host}/items/{id}` },
    });
    writePlugin(root, "keyed", {
      auth: { type: "api_key", key_name: "KEYED_API_KEY", prompt: "Your keyed API key" },
      tools: [tool("keyed", "api.keyed.example")],
    });
    writePlugin(root, "granted", {
      auth: { type: "oauth2", provider: "google", scopes: ["items.read"] },
      health_check: { url: "https://api.granted.example/me", account_path: "email" },
      tools: [{ ...tool("granted", "api.granted.example"), requires_scopes: ["items.read"] }],
    });
    h.writeConfig(
      [
        "[fermix_core.plugins]",
        `dev_local = ["${root}"]`,
        'enabled = ["keyed", "granted"]',
        "[fermix_core.plugin_secrets]",
        'keyed = "$SEEDED_PLUGIN_KEY"',
        "[fermix_core.oauth.google]",
        'client_id = "fermix-test-client"',
        'client_secret = "$SEEDED_CLIENT_SECRET"',
        "[fermix_core.tools.tool_search]",
        "enabled = false",
        "",
      ].join("\n"),
    );
    // The grant as `fermix plugins auth login granted` leaves it in auth.json (with no refresh token: the retry after
    // the 401 finds nothing to refresh with, and says so in the log).
    const grant = {
      provider: "google",
      access_token: secrets.grantAccess,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      scopes: ["items.read"],
      obtained_at: new Date().toISOString(),
    };
    writeFileSync(join(h.home, "auth.json"), JSON.stringify({ plugins: { granted: grant } }), { mode: 0o600 });

    const app = await createApp({
      env: {
        FERMIX_HOME: h.home,
        HOME: h.userHome,
        OPENAI_API_KEY: seed("prv"),
        OPENAI_BASE_URL: llm.baseUrl,
        SEEDED_PLUGIN_KEY: secrets.pluginKey,
        SEEDED_CLIENT_SECRET: secrets.clientSecret,
        FERMIX_TRACE_CONTENT: "1",
      },
      net: door.net,
    });
    defer(() => app.close());
    llm.enqueue({
      kind: "tool_calls",
      calls: [
        { name: "keyed_get_item", arguments: { id: "1" } },
        { name: "granted_get_item", arguments: { id: "2" } },
      ],
    });
    const reply = await app.ask({
      key: { channel: "cli", chat: "plugins" },
      caller: { trust: "operator", local: true, attended: true },
      text: "read items 1 and 2",
    });
    // Both APIs were reached with their credentials, and both refused.
    const sent = door.calls.map((c) => new Headers(c.init.headers).get("authorization"));
    expect(sent).toEqual([`Bearer ${secrets.pluginKey}`, `Bearer ${secrets.grantAccess}`]);
    expect(reply.response).toContain("credential [REDACTED:secret] may not read /items/1");
    expect(reply.response).toContain("credential [REDACTED:secret] may not read /items/2");

    const sinks = [
      { where: "the answer", text: reply.response },
      ...readTree(join(h.home, "logs")).map(({ file, text }) => ({ where: file, text })),
      ...readTree(join(h.home, "traces")).map(({ file, text }) => ({ where: file, text })),
    ];
    expect(leaksIn(secrets, sinks)).toEqual([]);
    expect(sinks.some((s) => s.where.includes("/traces/") && s.text.includes("may not read /items/1"))).toBe(true);
  });
});
