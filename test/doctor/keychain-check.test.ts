import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import type { RunResult } from "../../src/doctor/check.ts";
import { keychainCheck } from "../../src/doctor/keychain-check.ts";
import { runDoctor } from "../../src/doctor/run-doctor.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";
import { doctorDeps } from "./_deps.ts";

const defer = cleanupAfterEach();

function home() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return h;
}

const has =
  (...commands: string[]) =>
  (c: string) =>
    commands.includes(c) ? `/usr/bin/${c}` : null;

async function keychain(over: Parameters<typeof doctorDeps>[1], config?: string) {
  const h = home();
  if (config) h.writeConfig(config);
  const { rows } = await runDoctor(doctorDeps(h, over), [keychainCheck]);
  return rows;
}

describe("doctor: keychain", () => {
  test("Linux without secret-tool: the file store, which is fine", async () => {
    expect(await keychain({ which: has() })).toEqual([
      {
        id: "keychain",
        title: "keychain",
        status: "ok",
        detail: "secrets are kept in the file store, ~/h/secrets (0700); no OS keyring: secret-tool is not installed",
      },
    ]);
  });

  test("a Secret Service that answers (not found, nothing on stderr) is the keyring; no real entry is read", async () => {
    const calls: string[][] = [];
    const run = (argv: string[]): RunResult => {
      calls.push(argv);
      return { ok: false, stdout: "", stderr: "" };
    };
    const rows = await keychain({ which: has("secret-tool"), run });
    expect(rows[0]).toMatchObject({
      status: "ok",
      detail: "secrets are kept in the OS keyring (Secret Service, through secret-tool)",
    });
    expect(calls).toEqual([["secret-tool", "lookup", "service", "fermix-doctor", "account", "fermix", "env", "PROBE"]]);
  });

  test("secret-tool without a Secret Service warns: secrets land in files nobody chose", async () => {
    const run = (): RunResult => ({
      ok: false,
      stdout: "",
      stderr: "secret-tool: Cannot autolaunch D-Bus without X11 $DISPLAY\n",
    });
    const rows = await keychain({ which: has("secret-tool"), run });
    expect(rows[0]).toEqual({
      id: "keychain",
      title: "keychain",
      status: "warn",
      detail:
        "secret-tool is installed but no Secret Service answers (secret-tool: Cannot autolaunch D-Bus without X11 $DISPLAY); secrets go to the file store, ~/h/secrets (0700)",
      fix: 'unlock or start your keyring (gnome-keyring, KeePassXC), or set secret_store = "file" under [fermix_core] to keep the file store',
    });
  });

  test('secret_store = "file" is a choice, not a problem', async () => {
    const rows = await keychain({ which: has("secret-tool") }, '[fermix_core]\nsecret_store = "file"\n');
    expect(rows[0]).toMatchObject({ status: "ok" });
    expect(rows[0]!.detail).toEndWith('[fermix_core] secret_store = "file" asks for it');
  });

  test("a secrets directory others can list warns with the chmod", async () => {
    const h = home();
    mkdirSync(`${h.home}/secrets`, { recursive: true, mode: 0o755 });
    const { rows } = await runDoctor(doctorDeps(h), [keychainCheck]);
    expect(rows[0]).toEqual({
      id: "keychain",
      title: "keychain",
      status: "warn",
      detail: "~/h/secrets is open to other users (mode 755)",
      fix: "chmod 700 ~/h/secrets",
    });
  });

  test("macOS: the login keychain through security, or a warning when none answers", async () => {
    const okRun = (): RunResult => ({
      ok: true,
      stdout: '    "/Users/me/Library/Keychains/login.keychain-db"\n',
      stderr: "",
    });
    const mac = await keychain({ platform: "darwin", which: has("security"), run: okRun });
    expect(mac[0]).toMatchObject({
      status: "ok",
      detail: "secrets are kept in the macOS login keychain (through security)",
    });
    const badRun = (): RunResult => ({
      ok: false,
      stdout: "",
      stderr: "security: SecKeychainCopyDefault: A default keychain could not be found.\n",
    });
    const none = await keychain({ platform: "darwin", which: has("security"), run: badRun });
    expect(none[0]).toMatchObject({ status: "warn" });
  });
});
