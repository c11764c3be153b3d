import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pluginSecretSlot } from "../../src/config/secret-slots.ts";
import { createSecretStore } from "../../src/config/secret-store.ts";
import { resolveSecret } from "../../src/config/secrets.ts";
import { tempHome } from "../fixture/home.ts";
import { fakeKeyring } from "../plugins/settings/_fake-keyring.ts";

const SLOT = "PLUGIN_SLACK_API_KEY";
const TOKEN = "xoxb-1234-very-secret";
const mode = (path: string) => statSync(path).mode & 0o777;

describe("secret store", () => {
  test("pluginSecretSlot names a plugin's api key", () => {
    expect(pluginSecretSlot("slack")).toBe("PLUGIN_SLACK_API_KEY");
    expect(pluginSecretSlot("agent_mail")).toBe("PLUGIN_AGENT_MAIL_API_KEY");
  });

  test("Linux: secret-tool gets the value on stdin, never in argv, at the coordinates secrets.ts reads", async () => {
    await using h = tempHome();
    const secretsDir = join(h.home, "secrets");
    const keyring = fakeKeyring();
    const store = createSecretStore({ secretsDir, platform: "linux", run: keyring.run });
    expect(await store.store(SLOT, TOKEN)).toEqual({ where: "keyring" });
    const write = keyring.calls.find((c) => c.argv[1] === "store")!;
    expect(write.argv).toEqual([
      "secret-tool",
      "store",
      "--label",
      "Fermix",
      "service",
      "fermix",
      "account",
      "fermix",
      "env",
      SLOT,
    ]);
    expect(write.stdin).toBe(TOKEN);
    expect(keyring.calls.every((c) => !c.argv.some((a) => a.includes(TOKEN)))).toBe(true);
    expect(existsSync(secretsDir)).toBe(false);
    expect(store.has(SLOT)).toBe(true);
    const read = resolveSecret("@keyring", SLOT, { env: {}, secretsDir, platform: "linux", run: keyring.run });
    expect(read).toBe(TOKEN);
  });

  test("a non-default profile namespaces the entry, and the reader agrees", async () => {
    await using h = tempHome();
    const secretsDir = join(h.home, "secrets");
    const keyring = fakeKeyring();
    const store = createSecretStore({ secretsDir, platform: "linux", profile: "dev", run: keyring.run });
    await store.store(SLOT, TOKEN);
    expect(keyring.calls[0]!.argv).toContain("fermix:dev");
    const deps = { env: {}, secretsDir, platform: "linux" as const, run: keyring.run };
    expect(resolveSecret("@keyring", SLOT, { ...deps, profile: "dev" })).toBe(TOKEN);
    expect(() => resolveSecret("@keyring", SLOT, deps)).toThrow("no keyring entry");
  });

  test("macOS: delete then add with an open ACL (-U -A), service fermix:<SLOT>", async () => {
    await using h = tempHome();
    const secretsDir = join(h.home, "secrets");
    const keyring = fakeKeyring();
    const store = createSecretStore({ secretsDir, platform: "darwin", run: keyring.run });
    expect(await store.store(SLOT, TOKEN)).toEqual({ where: "keyring" });
    expect(keyring.calls.map((c) => c.argv[1])).toEqual(["delete-generic-password", "add-generic-password"]);
    const add = keyring.calls[1]!.argv;
    expect(add.slice(-4)).toEqual(["-w", TOKEN, "-U", "-A"]);
    expect(add).toContain(`fermix:${SLOT}`);
    expect(store.has(SLOT)).toBe(true);
    expect(keyring.calls.at(-1)!.argv).not.toContain("-w"); // has() asks for attributes, not the password
    expect(resolveSecret("@keyring", SLOT, { env: {}, secretsDir, platform: "darwin", run: keyring.run })).toBe(TOKEN);
  });

  test("no keyring writer: a 0600 file in a 0700 dir, read back by secrets.ts; a group-readable one is refused", async () => {
    await using h = tempHome();
    const secretsDir = join(h.home, "secrets");
    const keyring = fakeKeyring({ broken: true });
    const store = createSecretStore({ secretsDir, platform: "linux", run: keyring.run });
    expect(await store.store(SLOT, TOKEN)).toEqual({ where: "file" });
    const file = join(secretsDir, SLOT);
    expect(mode(secretsDir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe(TOKEN);
    expect(readdirSync(secretsDir)).toEqual([SLOT]); // no temp file left behind
    expect(store.has(SLOT)).toBe(true);
    const deps = { env: {}, secretsDir, platform: "linux" as const, run: keyring.run };
    expect(resolveSecret("@keyring", SLOT, deps)).toBe(TOKEN);
    chmodSync(file, 0o640);
    expect(() => resolveSecret("@keyring", SLOT, deps)).toThrow("readable by other users");
  });

  test("an existing secrets dir is tightened to 0700; other platforms and secret_store=file use files", async () => {
    await using h = tempHome();
    const secretsDir = join(h.home, "secrets");
    mkdirSync(secretsDir, { recursive: true, mode: 0o755 });
    chmodSync(secretsDir, 0o755);
    const keyring = fakeKeyring();
    expect(await createSecretStore({ secretsDir, platform: "win32", run: keyring.run }).store(SLOT, TOKEN)).toEqual({
      where: "file",
    });
    expect(mode(secretsDir)).toBe(0o700);
    const fileOnly = createSecretStore({ secretsDir, platform: "linux", prefer: "file", run: keyring.run });
    expect(await fileOnly.store("OTHER_KEY", TOKEN)).toEqual({ where: "file" });
    expect(keyring.calls).toEqual([]);
  });

  test("a keyring write removes a stale file-store copy (the reader would prefer it)", async () => {
    await using h = tempHome();
    const secretsDir = join(h.home, "secrets");
    await createSecretStore({ secretsDir, platform: "linux", run: fakeKeyring({ broken: true }).run }).store(
      SLOT,
      "old",
    );
    const keyring = fakeKeyring();
    await createSecretStore({ secretsDir, platform: "linux", run: keyring.run }).store(SLOT, TOKEN);
    expect(existsSync(join(secretsDir, SLOT))).toBe(false);
    expect(resolveSecret("@keyring", SLOT, { env: {}, secretsDir, platform: "linux", run: keyring.run })).toBe(TOKEN);
  });

  test("clear removes the keyring entry and the file", async () => {
    await using h = tempHome();
    const secretsDir = join(h.home, "secrets");
    const keyring = fakeKeyring();
    const store = createSecretStore({ secretsDir, platform: "linux", run: keyring.run });
    await store.store(SLOT, TOKEN);
    await createSecretStore({ secretsDir, platform: "linux", prefer: "file" }).store(SLOT, TOKEN);
    expect(keyring.items.size).toBe(1);
    await store.clear(SLOT);
    expect(keyring.items.size).toBe(0);
    expect(existsSync(join(secretsDir, SLOT))).toBe(false);
    expect(store.has(SLOT)).toBe(false);
    await store.clear(SLOT); // clearing twice is fine
  });

  test("refuses slots that could leave the secrets dir, and empty values, without echoing a value", async () => {
    await using h = tempHome();
    const store = createSecretStore({ secretsDir: join(h.home, "secrets"), platform: "linux", prefer: "file" });
    await expect(store.store("../CONFIG", TOKEN)).rejects.toThrow("not a secret name");
    expect(() => store.has("a/b")).toThrow("not a secret name");
    await expect(store.store(SLOT, "")).rejects.toThrow("refusing to store an empty secret");
    expect(existsSync(join(h.home, "CONFIG"))).toBe(false);
  });
});
