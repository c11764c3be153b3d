import { expect, test } from "bun:test";
import { createMcpSupervisor } from "../../../src/plugins/mcp-rail/supervisor.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempDir, writeEverythingPlugin } from "./_fixture.ts";

const defer = cleanupAfterEach();

async function everythingPlugin() {
  const root = await tempDir("fermix-mcp-everything-");
  defer(root.remove);
  return writeEverythingPlugin(root.path);
}

test("server-everything: tools are discovered with sanitised names and can be called", async () => {
  const supervisor = createMcpSupervisor({ discoveryTimeoutMs: 20_000 });
  defer(() => supervisor.stopAll());
  const handle = await supervisor.start({
    name: "everything",
    ...(await everythingPlugin()),
    configValues: {},
    env: process.env,
  });
  await handle.ready();
  expect(handle.status).toBe("ready");

  const tools = handle.tools();
  const names = tools.map((t) => t.name);
  expect(names).toContain("everything_get_sum");
  expect(names).toContain("everything_echo");
  for (const name of names) {
    expect(name).toMatch(/^everything_[a-z0-9_]+$/);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(64);
  }
  expect(new Set(names).size).toBe(names.length);
  const sum = tools.find((t) => t.name === "everything_get_sum")!;
  expect(sum.mcpName).toBe("get-sum");
  expect(sum.inputSchema).toMatchObject({ type: "object", properties: { a: {}, b: {} } });

  expect(await handle.call("everything_get_sum", { a: 2, b: 3 })).toEqual({ content: "The sum of 2 and 3 is 5." });
  expect(await handle.call("everything_echo", { message: "hello" })).toEqual({ content: "Echo: hello" });
  const image = await handle.call("everything_get_tiny_image", {});
  expect(image.content).toMatch(/\[image image\/png, \d+ bytes\]/);
  const bad = await handle.call("everything_get_sum", { a: "two" });
  expect(bad.isError).toBe(true);
});
