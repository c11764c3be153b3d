import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeLlm, type RecordedRequest, startFakeOpenAIResponses } from "../../fake/llm.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../../fixture/cli.ts";
import { tempHome } from "../../fixture/home.ts";
import { toolOutputs } from "../../fixture/tool-outputs.ts";

/*
 * The browser tool against Debian's chromium (headless), through the compiled binary: a scripted model opens a
 * form served on loopback, reads the snapshot, fills and submits it, reads the answer, takes a screenshot that
 * reaches the model as an image, and is refused a private address. Chromium is gone after the one-shot ask,
 * after an idle shutdown and after the daemon stops. Without chromium the file is skipped (.ci/run installs it).
 */

const CHROMIUM = ["/usr/bin/chromium", Bun.which("chromium")].find((p): p is string => !!p && existsSync(p));
if (!CHROMIUM)
  console.warn("test/capabilities/builtins/browser.test.ts skipped: no chromium (apt-get install chromium)");

const KEY = "sk-proj-browsertool0123456789abcdefghijklmnop";
const defer = cleanupAfterEach();

const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/") {
      return new Response(
        `<!doctype html><title>Sign-up</title><h1>Join the club</h1><p>Tell us your name.</p>
<form method="post" action="/submit"><label>Name <input name="name"></label> <button>Send</button></form>`,
        { headers: { "content-type": "text/html" } },
      );
    }
    if (url.pathname === "/submit" && req.method === "POST") {
      const name = new URLSearchParams(await req.text()).get("name") ?? "";
      return new Response(
        `<!doctype html><title>Thanks</title><p id="answer">Welcome aboard, ${name.replace(/[<&]/g, "")}!</p>`,
        {
          headers: { "content-type": "text/html" },
        },
      );
    }
    return new Response("not found", { status: 404 });
  },
});
afterAll(() => site.stop(true));
const SITE = `http://127.0.0.1:${site.port}/`;

/** A browser call as a model makes one for a deferred tool: through tool_call. */
const browserCall = (args: Record<string, unknown>) => ({
  kind: "tool_calls" as const,
  calls: [{ name: "tool_call", arguments: { name: "browser", arguments: args } }],
});

/** The model's side of the flow: each step reads what the previous tool call returned. */
function scriptBrowsing(llm: FakeLlm) {
  llm.setDefault((req: RecordedRequest) => {
    const outputs = toolOutputs(req);
    const last = outputs.at(-1) ?? "";
    const field = /textbox "Name" \[ref=(e\d+)\]/.exec(outputs[1] ?? "")?.[1] ?? "e0";
    switch (outputs.length) {
      case 0:
        return browserCall({ action: "open", url: SITE });
      case 1:
        return browserCall({ action: "snapshot" });
      case 2:
        return browserCall({ action: "act", kind: "fill", ref: field, text: "Ada" });
      case 3:
        return browserCall({ action: "act", kind: "submit", ref: field });
      case 4:
        return browserCall({ action: "act", kind: "get", selector: "#answer" });
      case 5:
        return browserCall({ action: "screenshot" });
      case 6:
        return browserCall({ action: "navigate", url: "http://10.1.2.3/admin" });
      default:
        return { kind: "text", text: `done: ${last}` };
    }
  });
}

/** Processes whose command line names this home's browser profile: our Chromium and its helpers. */
function chromiumsOf(home: string): number[] {
  const profile = join(home, "browser", "profile");
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(profile)) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

async function world(extra: string[] = [], opts: { allowLoopback?: boolean } = {}) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const llm = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => llm.close());
  h.writeConfig(
    [
      "[fermix_web]",
      "enabled = false",
      "[fermix_core.providers.openai]",
      "primary = true",
      `api_key = "${KEY}"`,
      `base_url = "${llm.baseUrl}"`,
      "[fermix_core.tools.browser]",
      `executable = "${CHROMIUM}"`,
      ...(opts.allowLoopback === false ? [] : ["allow_loopback = true"]),
      ...extra,
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome };
  defer(() => {
    for (const pid of chromiumsOf(h.home)) process.kill(pid, "SIGKILL");
  });
  return { h, llm, env };
}

describe.skipIf(!CHROMIUM)("browser tool in chromium", () => {
  test("open → snapshot → fill → submit → get → screenshot (an image part) → private address refused; no browser left", async () => {
    const { h, llm, env } = await world();
    scriptBrowsing(llm);
    const out = await runFermix(["ask", "--no-daemon", "sign me up as Ada"], { env });
    expect(out.stderr).not.toContain("Error");
    expect(out.code).toBe(0);
    const final = llm.requests.at(-1)!;
    const outputs = toolOutputs(final);
    expect(outputs).toHaveLength(7);
    expect(outputs[0]).toMatch(/^t\d+: Sign-up \(http:\/\/127\.0\.0\.1:\d+\/\)/);
    expect(outputs[1]).toContain('heading (level 1) "Join the club"');
    expect(outputs[1]).toMatch(/textbox "Name" \[ref=e\d+\]/);
    expect(outputs[1]).toMatch(/button "Send" \[ref=e\d+\]/);
    expect(outputs[2]).toMatch(/^filled e\d+/);
    expect(outputs[3]).toContain("now at Thanks");
    expect(outputs[4]).toBe("Welcome aboard, Ada!");
    expect(outputs[5]).toContain("screenshot of t");
    expect(outputs[5]).toContain("image(s) attached");
    expect(outputs[6]).toContain("refused http://10.1.2.3/admin");
    expect(outputs[6]).toContain("a private address");
    // The screenshot reached the model as an image part of the next request, a real PNG.
    const shotRequest = llm.requests.find((r) => toolOutputs(r).length === 6)!;
    const images = (shotRequest.body.input as any[]).flatMap((item) =>
      Array.isArray(item.content) ? item.content.filter((c: any) => c.type === "input_image") : [],
    );
    expect(images).toHaveLength(1);
    const png = Buffer.from(String(images[0].image_url).replace(/^data:image\/png;base64,/, ""), "base64");
    expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    // Only the latest images travel: the request after the refusal carries the screenshot at most once.
    expect(JSON.stringify(final.body.input).match(/input_image/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(out.stdout).toContain("done:");
    // The one-shot ask took its browser with it.
    await until(() => chromiumsOf(h.home).length === 0, "chromium to exit after the ask");
  }, 180_000);

  test("a loopback page is refused unless the owner allows it", async () => {
    const { llm, env } = await world([], { allowLoopback: false });
    llm.enqueue(browserCall({ action: "open", url: SITE }));
    llm.setDefault((req) => ({ kind: "text", text: `got: ${toolOutputs(req).join("|")}` }));
    const out = await runFermix(["ask", "--no-daemon", "open the local page"], { env });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("127.0.0.1 is this machine; set [fermix_core.tools.browser] allow_loopback = true");
  }, 120_000);

  test("the daemon's Chromium: shut down when idle, and gone when the daemon stops", async () => {
    const { h, llm, env } = await world(["idle_minutes = 0.02"]);
    const daemon = await startFermixDaemon(env);
    defer(() => daemon.stop());
    llm.enqueue(browserCall({ action: "open", url: SITE }), { kind: "text", text: "opened" });
    expect((await runFermix(["ask", "open it"], { env })).code).toBe(0);
    // Idle for 1.2 s: the session closes Chromium by itself while the daemon runs on.
    await until(() => chromiumsOf(h.home).length === 0, "the idle shutdown");
    expect(readFileSync(join(h.home, "logs", "fermix.log"), "utf8")).toContain("browser idle for");

    // A browser opened again goes with the daemon.
    const { h: h2, llm: llm2, env: env2 } = await world();
    const daemon2 = await startFermixDaemon(env2);
    llm2.enqueue(browserCall({ action: "open", url: SITE }), { kind: "text", text: "opened" });
    expect((await runFermix(["ask", "open it"], { env: env2 })).code).toBe(0);
    expect(chromiumsOf(h2.home).length).toBeGreaterThan(0);
    await daemon2.stop();
    await until(() => chromiumsOf(h2.home).length === 0, "chromium to exit with the daemon");
  }, 180_000);
});
