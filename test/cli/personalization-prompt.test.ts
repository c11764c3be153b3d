import { describe, expect, test } from "bun:test";
import { startFakeOpenAIResponses } from "../fake/llm.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { runFermix } from "../fixture/cli.ts";
import { tempHome } from "../fixture/home.ts";

const KEY = "sk-test-personalization-0123456789";
const defer = cleanupAfterEach();

async function world(config: string) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const fake = await startFakeOpenAIResponses({ apiKey: KEY });
  defer(() => fake.close());
  fake.setDefault({ kind: "text", text: "hello Ada" });
  h.writeConfig(config);
  const env = { FERMIX_HOME: h.home, HOME: h.userHome, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl };
  return { fake, ask: (text: string) => runFermix(["ask", text], { env }) };
}

describe("[fermix_core.personalization] in the system prompt (compiled binary)", () => {
  test("the owner's name and communication style reach the model, after the owner's profile, before the tools", async () => {
    const { fake, ask } = await world(
      [
        "[fermix_core.personalization]",
        'user_name = "Ada"',
        'timezone = "Europe/Paris"',
        'communication_style = "brief, no small talk"',
        "",
      ].join("\n"),
    );
    expect(await ask("hi")).toEqual({ code: 0, stdout: "hello Ada\n", stderr: "" });
    const system = String(fake.requests[0]!.body.instructions);
    expect(system).toContain(
      "## The owner, as set up\n- Name: Ada. Address them by it where it fits.\n- How they want you to communicate: brief, no small talk",
    );
    expect(system).toContain("the owner's timezone is Europe/Paris");
    const at = system.indexOf("## The owner, as set up");
    expect(at).toBeGreaterThan(system.indexOf("# About the owner")); // USER.md
    expect(at).toBeLessThan(system.indexOf("## Built-in Capability Catalog"));
  });

  test("only what is set is said, and nothing at all without them", async () => {
    const styleOnly = await world('[fermix_core.personalization]\ncommunication_style = "formal"\n');
    await styleOnly.ask("hi");
    const system = String(styleOnly.fake.requests[0]!.body.instructions);
    expect(system).toContain("## The owner, as set up\n- How they want you to communicate: formal");
    expect(system).not.toContain("- Name:");

    const none = await world('[fermix_core.personalization]\ntimezone = "UTC"\n');
    await none.ask("hi");
    expect(String(none.fake.requests[0]!.body.instructions)).not.toContain("## The owner, as set up");
  });
});
