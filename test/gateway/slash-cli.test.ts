import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type RecordedRequest, startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

/* The same slash commands from `fermix ask -s ID "/…"`, through the compiled binary (one process per ask). */

const KEY = "sk-test-slash-cli-0123456789abcdef";
const defer = cleanupAfterEach();

async function setup() {
  const h = tempHome();
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => h[Symbol.asyncDispose]());
  defer(() => fake.close());
  h.writeConfig('[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n');
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  const ask = async (session: string, text: string) => {
    const r = await runFermix(["ask", "-s", session, text], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return r.stdout;
  };
  return { h, fake, ask };
}

function userTexts(req: RecordedRequest): string[] {
  return (req.body.input as any[])
    .filter((item) => item.role === "user")
    .flatMap((item) => (Array.isArray(item.content) ? item.content : [{ text: item.content }]))
    .map((part) => String(part.text ?? ""));
}

describe("slash commands from fermix ask -s", () => {
  test("/whoami and /help answer without a model", async () => {
    const { fake, ask } = await setup();
    expect(await ask("s1", "/whoami")).toBe(
      "trust: owner\nchannel: cli\nchat: s1 (the -s session)\nsender: this machine (the local CLI)\n",
    );
    const help = await ask("s1", "/help");
    expect(help).toStartWith("Commands you can use here:\n/help — ");
    for (const usage of [
      "/whoami",
      "/new (also /clear)",
      "/compact",
      "/sandbox",
      "/grant PATH",
      "/soul",
      "/ultra PROMPT",
    ])
      expect(help).toContain(`\n${usage}`);
    for (const chatOnly of ["/stop", "/background", "/tasks"]) expect(help).not.toContain(`\n${chatOnly}`);
    expect(await ask("s1", "/bg do it later")).toStartWith("Background work is for chat channels");
    expect(await ask("s1", "/pause")).toBe(
      "Computer use is not enabled in this fermix, so there is nothing to pause.\n",
    );
    expect(fake.requests).toHaveLength(0);
  });

  test("/new: the next question's request no longer carries the earlier turn", async () => {
    const { fake, ask } = await setup();
    fake.setDefault((req) => ({ kind: "text", text: `heard: ${userTexts(req).join(" | ")}` }));
    expect(await ask("s2", "my name is Ada")).toBe("heard: my name is Ada\n");
    expect(await ask("s2", "what is my name?")).toBe("heard: my name is Ada | what is my name?\n");
    expect(await ask("s2", "/new")).toStartWith("Started a new conversation. The 4 earlier messages stay in memory");
    expect(await ask("s2", "what is my name?")).toBe("heard: what is my name?\n");
    expect(userTexts(fake.requests.at(-1)!)).toEqual(["what is my name?"]);
    expect(await ask("s2", "/clear")).toStartWith("Started a new conversation. The 2 earlier messages");
  });

  test("/grant, /sandbox and /revoke edit config.toml like fermix grant/revoke path", async () => {
    const { h, ask } = await setup();
    const data = join(h.userHome, "data");
    mkdirSync(data);
    expect(await ask("s3", "/grant ~/data")).toBe(
      `Granted ${data}: added to [sandbox] allowed_roots, in effect from the next turn.\n`,
    );
    const config = readFileSync(join(h.home, "config.toml"), "utf8");
    expect(config).toStartWith('[fermix_core.providers.openai]\napi_key = "$OPENAI_API_KEY"\n');
    expect(config).toContain(`allowed_roots = ["${data}"]`);
    expect(await ask("s3", "/sandbox")).toContain(`granted roots: ${data}\n`);
    expect(await ask("s3", "/revoke ~/data")).toBe(
      `Revoked ${data}: removed from [sandbox] allowed_roots, in effect from the next turn.\n`,
    );
    expect(await ask("s3", "/sandbox")).toContain("granted roots: none\n");
  });

  test("/soul review drafts in one ask and /soul apply TOKEN applies it in the next", async () => {
    const { h, fake, ask } = await setup();
    expect(await ask("s4", "hello")).toBe("pong\n");
    const file = join(h.home, "bootstrap", "main", "SOUL.md");
    const seeded = readFileSync(file, "utf8");
    expect(await ask("s4", "/soul reset")).toBe("SOUL.md is already the shipped default.\n");
    const edited = `${seeded.trimEnd()}\nPrefer short answers.\n`;
    fake.enqueue({ kind: "text", text: JSON.stringify({ verdict: "change", soul: edited, rationale: "shorter" }) });
    const review = await ask("s4", "/soul review prefer short answers");
    expect(review).toContain("+ Prefer short answers.");
    const token = /\/soul apply ([A-Z2-9]{8})/.exec(review)![1]!;
    expect(String(fake.requests.at(-1)!.body.instructions)).toStartWith("You curate SOUL.md");
    expect(fake.requests.at(-1)!.body.tools ?? []).toEqual([]);
    expect(await ask("s4", `/soul apply ${token}`)).toBe("SOUL.md updated: revision 2. /soul revert 1 undoes this.\n");
    expect(readFileSync(file, "utf8")).toBe(edited);
    expect(await ask("s4", "/soul revert 1")).toStartWith("SOUL.md is back to revision 1's text");
    expect(readFileSync(file, "utf8")).toBe(seeded);
  });
});
