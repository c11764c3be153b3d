import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openX11Driver } from "../../src/computer-use/x11/driver.ts";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { fermixBinary } from "../fixture/binary.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { startPane } from "../fixture/tmux.ts";
import { toolOutputs } from "../fixture/tool-outputs.ts";
import { hasXvfb, startXterm, startXvfb, XTERM_POINT } from "../fixture/xvfb.ts";

/*
 * confirm_consequential in `fermix chat` (a real terminal, in-process): typing into a terminal is asked inline while
 * the turn waits; "y" lets it through (the xterm's shell writes the line), "n" refuses it and the model hears so.
 */

const KEY = "sk-test-computer-use-chat-0123456789";
const defer = cleanupAfterEach();
const hasTmux = existsSync("/usr/bin/tmux");

describe.skipIf(!hasXvfb || !hasTmux)("computer use asks the owner inline in fermix chat", () => {
  test("a consequential action waits for the chat's y/N; y types, n refuses", async () => {
    const x = await startXvfb();
    defer(() => x.stop());
    const probe = await openX11Driver(x.display);
    defer(() => probe.close());
    const out = join(mkdtempSync(join(tmpdir(), "fx-cu-")), "out.txt");
    await startXterm(x, probe, `read l; echo "$l" > ${out}`);
    const h = tempHome();
    defer(() => h[Symbol.asyncDispose]());
    const fake = await startFakeOpenAIResponses({ apiKey: KEY });
    defer(() => fake.close());
    h.writeConfig(
      `[fermix_core.computer_use]\nenabled = true\ndisplay = ${x.number}\nscreenshot_after = false\n[sandbox]\nmode = "open"\n`,
    );
    const move = { action: "mouse_move", coordinate: [XTERM_POINT.x, XTERM_POINT.y] };
    fake.enqueue(
      { kind: "tool_calls", calls: [{ name: "computer_use", arguments: move }] },
      { kind: "tool_calls", calls: [{ name: "computer_use", arguments: { action: "type", text: "yes please" } }] },
      { kind: "tool_calls", calls: [{ name: "computer_use", arguments: { action: "key", text: "Return" } }] },
      { kind: "text", text: "all typed" },
    );
    const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
    const pane = await startPane([await fermixBinary(), "chat"], { env });
    defer(() => pane.kill());
    await pane.waitFor((s) => s.includes("fermix chat (in-process)"), "the chat's first line");
    await pane.type("type into the terminal");
    await pane.keys("Enter");
    await pane.waitFor(
      (s) => s.includes('fermix wants to type "yes please" into "sh" (XTerm), a terminal: allow? [y/N]'),
      "the inline question",
    );
    // The turn waits: the model has not heard back.
    expect(fake.requests).toHaveLength(2);
    await pane.type("y");
    await pane.keys("Enter");
    await pane.waitFor((s) => s.includes("Confirmed: type"), "the confirmation");
    await pane.waitFor(
      (s) => s.includes('fermix wants to press Return into "sh" (XTerm), a terminal: allow? [y/N]'),
      "the second question",
    );
    await pane.type("n");
    await pane.keys("Enter");
    await pane.waitFor((s) => s.includes("all typed"), "the answer");
    expect(toolOutputs(fake.requests[3]!).at(-1)).toStartWith("The owner denied this action");
    // Typed but never entered: the shell is still reading, so nothing is written.
    expect(existsSync(out)).toBe(false);
  }, 90_000);
});
