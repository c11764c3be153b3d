import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { startFermixDaemon } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";
import { openWebSession } from "../fixture/web-session.ts";
import { freePort } from "../gateway/_whatsapp-daemon.ts";

/*
 * The Voice notes and Search pages through the compiled daemon: a post writes config.toml in place (comments kept)
 * with the key in the file store and "@keyring" in the file; a bad value writes nothing. The other card pages
 * render. Every response, the log and stderr are scanned for the keys.
 */

const DEEPGRAM_KEY = "dgkey0123456789abcdefghijklmnopqrstuvwxyz";
const BRAVE_KEY = "BSAbrave0123456789abcdefghijklmnopqrstu";
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const port = await freePort();
  h.writeConfig(
    [
      "# the owner's comment, kept",
      "[fermix_web]",
      `port = ${port}`,
      `webhook_port = ${await freePort()}`,
      "[fermix_core]",
      'secret_store = "file" # no keyring here',
      "",
    ].join("\n"),
  );
  const env = { FERMIX_HOME: h.home, HOME: h.userHome };
  const daemon = await startFermixDaemon(env);
  defer(() => daemon.stop());
  const web = await openWebSession(env, port);
  const { get, seen } = web;
  /** A form post, then the GET it redirects to. */
  const post = async (path: string, fields: Record<string, string>) =>
    (await web.follow(await web.post(path, fields))).page;
  const configText = () => readFileSync(join(h.home, "config.toml"), "utf8");
  const scan = () => {
    const log = readFileSync(join(h.home, "logs", "fermix.log"), "utf8");
    for (const secret of [DEEPGRAM_KEY, BRAVE_KEY]) {
      for (const t of [...seen, log, daemon.stderr()]) expect(t).not.toContain(secret);
    }
  };
  return { h, get, post, configText, scan };
}

describe("web card pages in the daemon", () => {
  test("Voice notes and Search write config.toml and the file store; bad values write nothing", async () => {
    const s = await setup();
    const before = s.configText();

    // Deepgram without a key: refused, naming the field.
    const refused = await s.post("/setup/voice", { backend: "deepgram", model: "", api_key: "" });
    expect(refused.text).toContain('class="fail"');
    expect(refused.text).toContain("API key: Deepgram needs its own key");
    expect(s.configText()).toBe(before);

    const voice = await s.post("/setup/voice", {
      backend: "deepgram",
      model: "gpt-4o-mini-transcribe",
      api_key: DEEPGRAM_KEY,
    });
    expect(voice.text).toContain("applies to the next voice note");
    expect(voice.text).toContain('data-key-state="api_key">set</span>');
    let text = s.configText();
    expect(text).toContain("# the owner's comment, kept");
    expect(text).toContain("# no keyring here");
    expect(text).toContain('backend = "deepgram"');
    expect(text).toContain('model = "nova-3"');
    expect(text).toContain('deepgram_api_key = "@keyring"');
    expect(readFileSync(join(s.h.home, "secrets", "DEEPGRAM_API_KEY"), "utf8")).toBe(DEEPGRAM_KEY);

    // Search: a bad max_results writes nothing and stores no key.
    const afterVoice = s.configText();
    const bad = await s.post("/setup/search", { backend: "brave", max_results: "99", api_key: BRAVE_KEY });
    expect(bad.text).toContain("max_results: &quot;99&quot; is not a whole number from 1 to 20");
    expect(s.configText()).toBe(afterVoice);
    expect(existsSync(join(s.h.home, "secrets", "BRAVE_API_KEY"))).toBe(false);

    const search = await s.post("/setup/search", { backend: "brave", max_results: "6", api_key: BRAVE_KEY });
    expect(search.text).toContain("web search: brave saved");
    expect(search.text).toContain('<option value="brave" selected>Brave</option>');
    text = s.configText();
    expect(text).toContain("[fermix_core.tools.web_search]");
    expect(text).toContain("max_results = 6");
    expect(text).toContain('api_key = "@keyring"');
    expect(text).toContain("# the owner's comment, kept");
    expect(readFileSync(join(s.h.home, "secrets", "BRAVE_API_KEY"), "utf8")).toBe(BRAVE_KEY);

    // The other cards render in the daemon, in nav order after Channels.
    for (const [path, marker] of [
      ["/setup/media", 'name="backend"'],
      ["/setup/sandbox", "fermix grant path PATH"],
      ["/setup/coding", 'name="approved"'],
      ["/setup/memory", "Review now"],
    ]) {
      const page = await s.get(path!);
      expect(page.status).toBe(200);
      expect(page.text).toContain(marker!);
    }
    // Review now runs the daemon's own review (with nothing stored yet it says so before asking any provider).
    const review = await s.post("/setup/memory", { action: "review" });
    expect(review.text).toContain("memory review skipped: no facts about the owner are stored yet");
    const nav = /<nav>(.*?)<\/nav>/s.exec((await s.get("/setup/voice")).text)![1]!;
    const order = ["Channels", "Voice notes", "Search", "Media", "Sandbox", "Coding agents", "Memory"].map((t) =>
      nav.indexOf(t),
    );
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    s.scan();
  }, 60_000);
});
