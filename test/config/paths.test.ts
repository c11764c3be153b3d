/**
 * FERMIX_HOME's layout is joined without node:path on the CLI's hot path (issue 31); every path must still be
 * exactly what node:path gives, for clean homes and for the ones it would normalise.
 */
import { describe, expect, test } from "bun:test";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fermixPaths, resolveHome } from "../../src/config/paths.ts";

const HOMES = [
  "/home/ada/.fermix",
  "/home/ada/.fermix/",
  "/home//ada/.fermix",
  "/home/ada/./.fermix",
  "/home/ada/../bob/.fermix",
  "/",
  "/tmp/x.y/..z/.fermix",
  "relative/home",
  "./relative",
  "../up",
  ".",
];

describe("fermixPaths", () => {
  test.each(HOMES)("every path under %p is node:path's join", (home) => {
    const paths = fermixPaths(home);
    expect(paths.home).toBe(home);
    expect(paths.socket).toBe(join(home, "daemon.sock"));
    expect(paths.logFile).toBe(join(home, "logs", "fermix.log"));
    expect(paths.plugins.lock).toBe(join(home, "plugins", ".lock"));
    expect(paths.upgrade.previous).toBe(join(home, ".previous"));
    expect(paths.promptFiles.soul).toBe(join(home, "bootstrap", "main", "SOUL.md"));
  });
});

describe("resolveHome", () => {
  test("FERMIX_HOME, absolute, is taken as given", () => {
    expect(resolveHome({ FERMIX_HOME: "/srv/fx/" })).toBe("/srv/fx/");
  });

  test("FERMIX_HOME, relative, is resolved against the working directory", () => {
    expect(resolveHome({ FERMIX_HOME: "fx/../home" })).toBe(resolve("fx/../home"));
  });

  test.each(["/home/ada", "/home/ada/", "/home//ada", "rel", "/"])("HOME=%p gives node:path's .fermix", (home) => {
    expect(resolveHome({ HOME: home })).toBe(join(home, ".fermix"));
  });

  test("no HOME at all falls back to the account's home directory", () => {
    expect(resolveHome({})).toBe(join(homedir(), ".fermix"));
  });
});
