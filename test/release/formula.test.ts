import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { homebrewDesc, homebrewFormula } from "../../src/release/formula.ts";

const BASE = "https://get.fermix.dev/v0.2.0";
const sum = (c: string) => c.repeat(64);
const ALL = [
  { target: "linux-x86_64", url: `${BASE}/fermix_linux_x86_64`, sha256: sum("1") },
  { target: "linux-arm64", url: `${BASE}/fermix_linux_arm64`, sha256: sum("2") },
  { target: "linux-x86_64-musl", url: `${BASE}/fermix_linux_x86_64_musl`, sha256: sum("3") },
  { target: "darwin-x86_64", url: `${BASE}/fermix_darwin_x86_64`, sha256: sum("4") },
  { target: "darwin-arm64", url: `${BASE}/fermix_darwin_arm64`, sha256: sum("5") },
];
const INPUT = {
  version: "0.2.0",
  description: "A personal AI agent in one self-contained binary: daemon and CLI.",
  homepage: "https://get.fermix.dev",
  license: "MIT",
};

/**
 * Loads a formula under a stand-in for Homebrew's DSL and reports what it declares: url and sha256 per
 * platform block, and which file `install` puts where on each platform. Proves more than `ruby -c`.
 */
const HOMEBREW_STUB = `
require "json"
$os = nil; $cpu = nil; $installed = nil; $completions = nil
module OS; def self.mac? = $os == "macos"; def self.linux? = $os == "linux"; end
module Hardware; module CPU; def self.arm? = $cpu == "arm"; def self.intel? = $cpu == "intel"; end; end
class Pathname; def initialize(p) = @p = p; def /(o) = "#{@p}/#{o}"; def install(map) = $installed = map; end
class Formula
  @@rec = { "blocks" => {} }
  def self.rec = @@rec
  %w[desc homepage version license].each { |k| define_singleton_method(k) { |v| @@rec[k] = v } }
  def self.on_macos = (@@os = "macos"; yield; @@os = nil)
  def self.on_linux = (@@os = "linux"; yield; @@os = nil)
  def self.on_arm = (@@cpu = "arm"; yield; @@cpu = nil)
  def self.on_intel = (@@cpu = "intel"; yield; @@cpu = nil)
  def self.block = (@@rec["blocks"]["#{@@os}/#{@@cpu}"] ||= {})
  def self.url(u) = block["url"] = u
  def self.sha256(s) = block["sha256"] = s
  def self.service = (@@rec["service"] = true)
  def self.test = (@@rec["test"] = true)
  def bin = Pathname.new("BIN")
  def odie(msg) = raise(msg)
  def generate_completions_from_executable(*args, **opts) = $completions = [*args.map(&:to_s), opts]
end
load ARGV[0]
installs = {}
%w[macos linux].product(%w[arm intel]).each do |os, cpu|
  $os = os; $cpu = cpu; $installed = nil
  begin; Fermix.new.install; installs["#{os}/#{cpu}"] = $installed; rescue => e; installs["#{os}/#{cpu}"] = e.message; end
end
puts JSON.generate(Formula.rec.merge("installs" => installs, "completions" => $completions))
`;

function evaluate(text: string) {
  const dir = mkdtempSync(join(tmpdir(), "fermix-formula-"));
  try {
    writeFileSync(join(dir, "fermix.rb"), text);
    writeFileSync(join(dir, "stub.rb"), HOMEBREW_STUB);
    const syntax = Bun.spawnSync(["ruby", "-c", join(dir, "fermix.rb")]);
    expect(syntax.stderr.toString()).toBe("");
    expect(syntax.stdout.toString()).toBe("Syntax OK\n");
    const run = Bun.spawnSync(["ruby", join(dir, "stub.rb"), join(dir, "fermix.rb")]);
    expect(run.stderr.toString()).toBe("");
    return JSON.parse(run.stdout.toString());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hasRuby = Bun.which("ruby") !== null;

describe("the Homebrew formula", () => {
  test("names the four macOS/glibc builds with their sums, and leaves musl out", () => {
    const formula = homebrewFormula({ ...INPUT, artifacts: ALL });
    expect(formula.included).toEqual(["darwin-arm64", "darwin-x86_64", "linux-arm64", "linux-x86_64"]);
    expect(formula.omitted).toEqual([]);
    expect(formula.text).toContain("class Fermix < Formula");
    expect(formula.text).not.toContain("musl");
  });

  test.skipIf(!hasRuby)("passes ruby -c and declares what it should on every platform", () => {
    const got = evaluate(homebrewFormula({ ...INPUT, artifacts: ALL }).text);
    expect(got.desc).toBe("Personal AI agent in one self-contained binary: daemon and CLI");
    expect(got.version).toBe("0.2.0");
    expect(got.license).toBe("MIT");
    expect(got.homepage).toBe("https://get.fermix.dev");
    expect(got.service).toBe(true);
    expect(got.test).toBe(true);
    expect(got.blocks).toEqual({
      "macos/arm": { url: `${BASE}/fermix_darwin_arm64`, sha256: sum("5") },
      "macos/intel": { url: `${BASE}/fermix_darwin_x86_64`, sha256: sum("4") },
      "linux/arm": { url: `${BASE}/fermix_linux_arm64`, sha256: sum("2") },
      "linux/intel": { url: `${BASE}/fermix_linux_x86_64`, sha256: sum("1") },
    });
    expect(got.installs).toEqual({
      "macos/arm": { fermix_darwin_arm64: "fermix" },
      "macos/intel": { fermix_darwin_x86_64: "fermix" },
      "linux/arm": { fermix_linux_arm64: "fermix" },
      "linux/intel": { fermix_linux_x86_64: "fermix" },
    });
    // Homebrew runs `fermix completion bash|zsh|fish` (its default: the shell as the last word) into its folders.
    expect(got.completions).toEqual(["BIN/fermix", "completion", {}]);
  });

  test.skipIf(!hasRuby)("omits the block of a target that was not built, and says so", () => {
    const artifacts = ALL.filter((a) => a.target === "linux-x86_64" || a.target === "darwin-arm64");
    const formula = homebrewFormula({ ...INPUT, license: undefined, artifacts });
    expect(formula.omitted).toEqual(["darwin-x86_64", "linux-arm64"]);
    const got = evaluate(formula.text);
    expect(Object.keys(got.blocks).sort()).toEqual(["linux/intel", "macos/arm"]);
    expect(got.installs["linux/arm"]).toBe("fermix has no build for this platform");
    expect(got.license).toBeUndefined();
  });

  test("refuses a release with nothing Homebrew can install", () => {
    expect(() => homebrewFormula({ ...INPUT, artifacts: [ALL[2]!] })).toThrow(/no macOS or glibc Linux build/);
  });

  test("desc follows Homebrew's audit: no article, no full stop", () => {
    expect(homebrewDesc("An agent.")).toBe("Agent");
    expect(homebrewDesc("fermix in one binary")).toBe("Fermix in one binary");
  });
});
