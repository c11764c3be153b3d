import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import type { RecordedRequest } from "../fake/types.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";

/*
 * Computer use in browser mode end to end: the compiled daemon with no DISPLAY at all, Debian's chromium through
 * the browser tool's session, and a fake Responses provider whose scripted calls open a form on loopback (browser
 * tool), take a computer_use screenshot (an image part of the configured size reaches the provider), click the
 * input where the screenshot shows it, type and press Return — the form server records the value. With
 * allowed_domains = ["example.org"] the same click is refused, naming the domain and the key.
 */

const CHROMIUM = ["/usr/bin/chromium", Bun.which("chromium")].find((p): p is string => !!p && existsSync(p));
if (!CHROMIUM) console.warn("test/computer-use/computer-use-browser-daemon.test.ts skipped: no chromium");

const KEY = "sk-test-computer-use-browser-0123456789";
const defer = cleanupAfterEach();

const submitted: string[] = [];
let onSubmit: (() => void) | undefined;
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/") {
      return new Response(
        `<!doctype html><title>Notes</title><style>body{margin:0}
#q{position:absolute;left:100px;top:100px;width:300px;height:40px}</style>
<form method="post" action="/submit"><input id="q" name="q" autocomplete="off"><button>Save</button></form>`,
        { headers: { "content-type": "text/html" } },
      );
    }
    if (url.pathname === "/submit" && req.method === "POST") {
      submitted.push(new URLSearchParams(await req.text()).get("q") ?? "");
      onSubmit?.();
      return new Response("<!doctype html><title>Saved</title><p>saved</p>", {
        headers: { "content-type": "text/html" },
      });
    }
    return new Response("not found", { status: 404 });
  },
});
afterAll(() => site.stop(true));
const SITE = `http://127.0.0.1:${site.port}/`;

/** Processes whose command line names this home's browser profile: the daemon's Chromium and its helpers. */
function chromiumsOf(home: string): number[] {
  const profile = join(home, "browser", "profile");
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(profile);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function setup(extra: string[] = []) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  h.writeConfig(
    [
      "[fermix_web]",
      "enabled = false",
      "[fermix_core.computer_use]",
      "enabled = true",
      'mode = "browser"',
      // Playwright's default viewport: the model's grid is the page's CSS pixels one to one.
      "display_width_px = 1280",
      "display_height_px = 720",
      "confirm_consequential = false",
      ...extra,
      "[fermix_core.tools.browser]",
      `executable = "${CHROMIUM}"`,
      "allow_loopback = true",
      "[sandbox]",
      'mode = "standard"',
      "",
    ].join("\n"),
  );
  // No DISPLAY: browser mode needs none.
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  const daemon = await startFermixDaemon(env);
  defer(async () => {
    await daemon.stop();
    for (const pid of chromiumsOf(h.home)) process.kill(pid, "SIGKILL");
  });
  return { fake, env };
}

const call = (name: string, args: Record<string, unknown>) => ({
  kind: "tool_calls" as const,
  calls: [{ name, arguments: args }],
});
const openSite = call("tool_call", { name: "browser", arguments: { action: "open", url: SITE } });

function pngImages(req: RecordedRequest): Array<{ width: number; height: number }> {
  const found = JSON.stringify(req.body).matchAll(/data:image\/png;base64,([A-Za-z0-9+/=]+)/g);
  return [...found].map(([, data]) => {
    const bytes = Buffer.from(data!, "base64");
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  });
}

describe.skipIf(!CHROMIUM)("computer use in browser mode (compiled daemon, chromium, no DISPLAY)", () => {
  test("screenshot of the page, click into the input, type, Return: the form server gets the value", async () => {
    const { fake, env } = await setup();
    // Chromium sends the form on its own schedule after Return: the server's record is the signal.
    const got = new Promise<void>((resolve) => {
      onSubmit = resolve;
    });
    fake.enqueue(
      openSite,
      call("computer_use", { action: "screenshot" }),
      call("computer_use", { action: "left_click", coordinate: [250, 120] }),
      call("computer_use", { action: "type", text: "hello" }),
      call("computer_use", { action: "key", text: "Return" }),
      { kind: "text", text: "Saved it." },
    );
    const asked = await runFermix(["ask", "save hello in the notes form"], { env });
    expect(asked.stderr).toBe("");
    expect(asked.stdout).toBe("Saved it.\n");
    const requests = fake.requests;
    expect(requests).toHaveLength(6);
    expect(((requests[0]!.body.tools ?? []) as Array<{ name?: string }>).map((t) => t.name)).toContain("computer_use");
    expect(pngImages(requests[2]!)).toEqual([{ width: 1280, height: 720 }]);
    for (const output of toolOutputs(requests[5]!).slice(2)) expect(output).toStartWith("Done:");
    await got;
    expect(submitted.at(-1)).toBe("hello");
  }, 90_000);

  test('allowed_domains = ["example.org"]: input on the loopback page refused, naming the domain and the key', async () => {
    const { fake, env } = await setup(['allowed_domains = ["example.org"]']);
    const before = submitted.length;
    fake.enqueue(
      openSite,
      call("computer_use", { action: "left_click", coordinate: [250, 120] }),
      call("computer_use", { action: "screenshot" }),
      { kind: "text", text: "Not allowed there." },
    );
    const asked = await runFermix(["ask", "click the notes form"], { env });
    expect(asked.stdout).toBe("Not allowed there.\n");
    const outputs = toolOutputs(fake.requests.at(-1)!);
    expect(outputs[1]).toContain("the page's domain 127.0.0.1 is not in allowed_domains (example.org)");
    expect(outputs[1]).toContain("[fermix_core.computer_use] allowed_domains");
    // Looking is still allowed.
    expect(pngImages(fake.requests.at(-1)!)).toEqual([{ width: 1280, height: 720 }]);
    expect(submitted.length).toBe(before);
  }, 90_000);
});
