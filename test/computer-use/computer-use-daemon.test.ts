import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DesktopDriver } from "../../src/computer-use/driver-contract.ts";
import { openX11Driver } from "../../src/computer-use/x11/driver.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import type { RecordedRequest } from "../fake/types.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix, startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";
import { hasXvfb, startXterm, startXvfb, waitUntil, XTERM_POINT } from "../fixture/xvfb.ts";

/*
 * Computer use end to end: the compiled daemon, the real X11 driver on Xvfb (a 1600×1000 screen the model sees at
 * 1280×800), a real xterm, and a fake Responses provider whose scripted computer_use calls take a screenshot,
 * zoom and get an ambiguous click refused, click into the xterm and type a line that the xterm's shell writes to a
 * file. /pause in the middle of a run holds the next action until /resume.
 */

const KEY = "sk-test-computer-use-0123456789";
const defer = cleanupAfterEach();
const SCREEN = { width: 1600, height: 1000 };
// XTERM_POINT in real pixels, on the model's 1280×800 grid.
const CLICK = [Math.round((XTERM_POINT.x * 1280) / SCREEN.width), Math.round((XTERM_POINT.y * 800) / SCREEN.height)];

async function setup(opts: { script: string; sandbox?: string; extra?: string[] }) {
  const x = await startXvfb(SCREEN);
  defer(() => x.stop());
  // The test's own connection, to see the xterm mapped before the model acts.
  const probe: DesktopDriver = await openX11Driver(x.display);
  defer(() => probe.close());
  await startXterm(x, probe, opts.script);
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  h.writeConfig(
    [
      "[fermix_core.computer_use]",
      "enabled = true",
      `display = ${x.number}`,
      "confirm_consequential = false",
      ...(opts.extra ?? []),
      "[sandbox]",
      `mode = "${opts.sandbox ?? "open"}"`,
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  return { x, h, fake, env, cli: { FERMIX_HOME: h.home, HOME: h.userHome } };
}

function pngImages(req: RecordedRequest): Array<{ width: number; height: number }> {
  const found = JSON.stringify(req.body).matchAll(/data:image\/png;base64,([A-Za-z0-9+/=]+)/g);
  return [...found].map(([, data]) => {
    const bytes = Buffer.from(data!, "base64");
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  });
}

function toolNames(req: RecordedRequest): string[] {
  return ((req.body.tools ?? []) as Array<{ name?: string }>).map((t) => t.name ?? "");
}

function traceLines(home: string, type: string): Array<Record<string, unknown>> {
  const root = join(home, "traces");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((day) => {
    const file = join(root, day, `${type}.jsonl`);
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  });
}

const call = (name: string, args: Record<string, unknown>) => ({
  kind: "tool_calls" as const,
  calls: [{ name, arguments: args }],
});

describe.skipIf(!hasXvfb)("computer use on a real X display (compiled daemon, Xvfb, xterm)", () => {
  test("screenshot, a refused ambiguous click, a click into xterm and a typed line that the program writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-cu-"));
    const out = join(dir, "out.txt");
    const { fake, env, h } = await setup({ script: `read l; echo "$l" > ${out}` });
    fake.enqueue(
      call("computer_use", { action: "screenshot" }),
      call("computer_use", { action: "zoom", region: [0, 0, 320, 200] }),
      call("computer_use", { action: "left_click", coordinate: [40, 20] }),
      call("computer_use", { action: "screenshot" }),
      call("computer_use", { action: "left_click", coordinate: CLICK }),
      call("computer_use", { action: "type", text: "hello from fermix" }),
      call("computer_use", { action: "key", text: "Return" }),
      { kind: "text", text: "Typed it." },
    );
    const asked = await runFermix(["ask", "type hello into the terminal"], { env });
    expect(asked.stderr).toBe("");
    expect(asked.stdout).toBe("Typed it.\n");

    const requests = fake.requests;
    expect(requests).toHaveLength(8);
    // Offered directly (its schema on the wire), not behind tool_search.
    expect(toolNames(requests[0]!)).toContain("computer_use");
    // The screenshot reached the model as a PNG at the configured size, scaled from the 1600×1000 screen.
    expect(pngImages(requests[1]!)).toEqual([{ width: 1280, height: 800 }]);
    expect(toolOutputs(requests[3]!).at(-1)).toContain(
      "Coordinates are read on the full-screen grid: take a screenshot first",
    );
    // Each later screenshot keeps at most max_retained_screenshots (3) pictures in the request.
    expect(pngImages(requests[7]!).length).toBeLessThanOrEqual(3);

    await waitUntil(() => existsSync(out) && readFileSync(out, "utf8").length > 0, "the xterm's shell to write");
    expect(readFileSync(out, "utf8")).toBe("hello from fermix\n");

    // One tool_exec line per action: the action, the coordinates as converted, never the typed text.
    const lines = traceLines(h.home, "tool_exec").filter((l) => l.tool === "computer_use");
    expect(lines.map((l) => l.action)).toEqual([
      "screenshot",
      "zoom",
      "left_click",
      "screenshot",
      "left_click",
      "type",
      "key",
    ]);
    expect(lines[4]).toMatchObject({ action: "left_click", x: XTERM_POINT.x, y: XTERM_POINT.y, status: "ok" });
    expect(lines[5]).toMatchObject({ action: "type", text_chars: 17 });
    expect(JSON.stringify(lines)).not.toContain("hello from fermix");
  }, 90_000);

  test('[sandbox] mode "strict" refuses input but shows the screen; max_actions stops a runaway loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-cu-"));
    const out = join(dir, "out.txt");
    const { fake, env } = await setup({
      script: `read l; echo "$l" > ${out}`,
      sandbox: "strict",
      extra: ["max_actions = 4"],
    });
    fake.enqueue(
      call("computer_use", { action: "screenshot" }),
      call("computer_use", { action: "left_click", coordinate: CLICK }),
      call("computer_use", { action: "type", text: "not allowed" }),
      call("computer_use", { action: "zoom", region: [0, 0, 640, 400] }),
      call("computer_use", { action: "screenshot" }),
      { kind: "text", text: "Stopped." },
    );
    const asked = await runFermix(["ask", "try the terminal"], { env });
    expect(asked.stdout).toBe("Stopped.\n");
    const outputs = fake.requests.map((r) => toolOutputs(r).at(-1) ?? "");
    expect(pngImages(fake.requests[1]!)).toEqual([{ width: 1280, height: 800 }]);
    for (const refused of [outputs[2], outputs[3]]) {
      expect(refused).toContain('input is off while [sandbox] mode is "strict"; set mode = "standard"');
    }
    expect(outputs[4]).toContain("A 1280×800 zoom of [0, 0, 640, 400]");
    expect(outputs[5]).toContain("This turn reached max_actions (4 computer_use actions)");
    expect(existsSync(out)).toBe(false);
  }, 90_000);

  test("/pause during a run holds the next action until /resume", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fx-cu-"));
    const out = join(dir, "out.txt");
    const { fake, env } = await setup({ script: `read l; echo "$l" > ${out}` });
    fake.enqueue(
      call("computer_use", { action: "left_click", coordinate: CLICK }),
      call("computer_use", { action: "type", text: "after resume" }),
      call("computer_use", { action: "key", text: "Return" }),
      { kind: "text", text: "Done." },
    );
    const session = ["-s", "ses_pause"];
    expect((await runFermix(["ask", ...session, "/pause"], { env })).stdout).toStartWith("Paused:");
    const asking = runFermix(["ask", ...session, "click into the terminal and type"], { env });
    // The first action is held: /pause says so once the turn reaches it (the readiness signal, no sleep).
    await waitUntil(
      async () => (await runFermix(["ask", ...session, "/pause"], { env })).stdout.includes("an action is waiting"),
      "the held action",
    );
    expect(fake.requests).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
    expect((await runFermix(["ask", ...session, "/resume"], { env })).stdout).toStartWith("Resumed");
    const asked = await asking;
    expect(asked.stdout).toBe("Done.\n");
    await waitUntil(() => existsSync(out) && readFileSync(out, "utf8").length > 0, "the xterm's shell to write");
    expect(readFileSync(out, "utf8")).toBe("after resume\n");
  }, 90_000);
});
