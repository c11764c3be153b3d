import { expect, test } from "bun:test";
import { realpath } from "node:fs/promises";
import { createMcpSupervisor } from "../../../src/plugins/mcp-rail/supervisor.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempDir, writeMcpPlugin } from "./_fixture.ts";

const defer = cleanupAfterEach();

async function serverEnvOf(passEnv: string[]) {
  const root = await tempDir("fermix-mcp-env-");
  defer(root.remove);
  const supervisor = createMcpSupervisor();
  defer(() => supervisor.stopAll());
  const plugin = await writeMcpPlugin(root.path, "probe", { passEnv });
  const daemonEnv = { ...process.env, OPENAI_API_KEY: "sk-test-secret", GITHUB_TOKEN: "ghp-secret", TZ: "UTC" };
  const handle = await supervisor.start({
    name: "probe",
    ...plugin,
    configValues: { MODE: "normal", HELPER: false, UNDECLARED_KEY: "x" },
    env: daemonEnv,
  });
  await handle.ready();
  expect(handle.status).toBe("ready");
  const env = JSON.parse((await handle.call("probe_env", {})).content) as Record<string, string>;
  const cwd = (await handle.call("probe_cwd", {})).content;
  return { env, cwd, dir: plugin.dir };
}

test("the server sees a minimal env and its config values, never the daemon's secrets", async () => {
  const { env, cwd, dir } = await serverEnvOf([]);
  expect(env.OPENAI_API_KEY).toBeUndefined();
  expect(env.GITHUB_TOKEN).toBeUndefined();
  expect(env.UNDECLARED_KEY).toBeUndefined();
  expect(env.MODE).toBe("normal");
  expect(env.HELPER).toBe("false");
  expect(env.HOME).toBe(process.env.HOME!);
  expect(Object.keys(env).sort()).toEqual(["HELPER", "HOME", "LANG", "MODE", "PATH"]);
  expect(cwd).toBe(await realpath(dir));
});

test("a name listed in pass_env is passed through, and only that one", async () => {
  const { env } = await serverEnvOf(["OPENAI_API_KEY", "NOT_SET_ANYWHERE"]);
  expect(env.OPENAI_API_KEY).toBe("sk-test-secret");
  expect(env.GITHUB_TOKEN).toBeUndefined();
  expect("NOT_SET_ANYWHERE" in env).toBe(false);
});
