import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { fermixPaths } from "../../src/config/paths.ts";
import {
  consumeLaunchToken,
  currentFingerprint,
  fingerprint,
  LAUNCH_TTL_MS,
  launchUrl,
  mintLaunchToken,
  rotateSetupToken,
} from "../../src/web/launch-token.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";
import { tempHome } from "../fixture/home.ts";

const defer = cleanupAfterEach();

function paths() {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  return fermixPaths(h.home).web;
}

describe("launch token", () => {
  test("minting creates the setup token and the launch file, both 0600, bound to its fingerprint", () => {
    const p = paths();
    const { token, expiresAt } = mintLaunchToken(p, 1_000);
    expect(expiresAt).toBe(1_000 + LAUNCH_TTL_MS);
    expect(statSync(p.setupToken).mode & 0o777).toBe(0o600);
    expect(statSync(p.launchToken).mode & 0o777).toBe(0o600);
    const setup = readFileSync(p.setupToken, "utf8").trim();
    const record = JSON.parse(readFileSync(p.launchToken, "utf8"));
    expect(record.setup_fingerprint).toBe(fingerprint(setup));
    const url = launchUrl(4030, token);
    expect(url).toStartWith("http://127.0.0.1:4030/setup?t=");
    expect(url).not.toContain(setup);
    expect(record.token).toBe(token);
  });

  test("a valid token is consumed once; a wrong one leaves the real one usable", () => {
    const p = paths();
    const { token } = mintLaunchToken(p, 0);
    expect(consumeLaunchToken(p, "guess", 1)).toBeUndefined();
    expect(existsSync(p.launchToken)).toBe(true);
    expect(consumeLaunchToken(p, token, 1)).toBe(currentFingerprint(p)!);
    expect(existsSync(p.launchToken)).toBe(false);
    expect(consumeLaunchToken(p, token, 2)).toBeUndefined();
  });

  test("an expired token or one minted under a rotated setup token is dead", () => {
    const p = paths();
    const { token } = mintLaunchToken(p, 0);
    expect(consumeLaunchToken(p, token, LAUNCH_TTL_MS)).toBeUndefined();
    const again = mintLaunchToken(p, 0).token;
    rotateSetupToken(p);
    expect(consumeLaunchToken(p, again, 1)).toBeUndefined();
  });

  test("the setup token survives minting and only rotation replaces it", () => {
    const p = paths();
    mintLaunchToken(p, 0);
    const first = currentFingerprint(p);
    mintLaunchToken(p, 0);
    expect(currentFingerprint(p)).toBe(first!);
    expect(rotateSetupToken(p)).not.toBe(first!);
  });
});
