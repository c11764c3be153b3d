import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isWithin } from "../../src/sandbox/_path.ts";
import { bubblewrapArgv, planBubblewrap } from "../../src/sandbox/bubblewrap.ts";
import { seatbeltProfile } from "../../src/sandbox/seatbelt.ts";
import { makeTree } from "./_tree.ts";

describe("bubblewrap plan", () => {
  test("a root without protected paths below it is bound whole", () => {
    using t = makeTree();
    const plan = planBubblewrap({ roots: [t.project], denied: [join(t.home, ".ssh")], isDenied: () => false });
    expect(plan.writable).toEqual([t.project]);
  });

  test("the home in open mode is bound child by child, skipping credentials, FERMIX_HOME and links", () => {
    using t = makeTree();
    symlinkSync("/etc", join(t.home, "etc-link"));
    mkdirSync(join(t.home, ".config", "gh"), { recursive: true });
    writeFileSync(join(t.home, ".config", "app.toml"), "");
    const denied = [
      join(t.home, ".ssh"),
      join(t.home, ".aws"),
      join(t.home, ".docker", "config.json"),
      join(t.home, ".config", "gh"),
      t.fermixHome,
    ];
    const isDenied = (p: string) => denied.some((d) => isWithin(p, d));
    const plan = planBubblewrap({ roots: [t.home], denied, isDenied });
    expect(plan.writable.sort()).toEqual(
      [
        join(t.home, ".config", "app.toml"),
        join(t.home, ".docker", "daemon.json"),
        join(t.home, "notes.txt"),
        join(t.home, "projects"),
      ].sort(),
    );
    expect(plan.masks).toEqual([
      { path: join(t.home, ".ssh"), kind: "dir" },
      { path: join(t.home, ".aws"), kind: "dir" },
      { path: join(t.home, ".docker", "config.json"), kind: "file" },
      { path: join(t.home, ".config", "gh"), kind: "dir" },
      { path: t.fermixHome, kind: "dir" },
      ...plan.masks.slice(5), // the system masks that exist on this machine
    ]);
  });

  test("a credential directory that is a link is masked where it leads", () => {
    using t = makeTree();
    mkdirSync(join(t.home, "dotfiles", "kube"), { recursive: true });
    symlinkSync(join(t.home, "dotfiles", "kube"), join(t.home, ".kube"));
    const plan = planBubblewrap({ roots: [], denied: [join(t.home, ".kube")], isDenied: () => false });
    expect(plan.masks[0]).toEqual({ path: join(t.home, "dotfiles", "kube"), kind: "dir" });
  });

  test("argv: read-only root first, then binds, masks, re-binds inside masks, and read-only masks", () => {
    const argv = bubblewrapArgv(
      "/usr/bin/bwrap",
      {
        writable: ["/h/.fermix/workspace", "/h/proj"],
        masks: [
          { path: "/h/.fermix", kind: "dir" },
          { path: "/h/.netrc", kind: "file" },
        ],
      },
      "/h/proj",
      ["/bin/sh", "-c", "make"],
    );
    // Paths here have no spaces, so the joined form is unambiguous and reads like the command line.
    expect(argv.join(" ")).toBe(
      [
        "/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp",
        "--bind /h/.fermix/workspace /h/.fermix/workspace --bind /h/proj /h/proj",
        "--tmpfs /h/.fermix --ro-bind /dev/null /h/.netrc",
        "--bind /h/.fermix/workspace /h/.fermix/workspace --remount-ro /h/.fermix",
        "--unshare-all --share-net --die-with-parent --new-session --chdir /h/proj",
        "-- /bin/sh -c make",
      ].join(" "),
    );
  });
});

describe("sandbox-exec profile (macOS, not run here)", () => {
  test("allows writes only to the roots and denies credentials last", () => {
    const profile = seatbeltProfile({
      writable: ["/Users/ada/proj"],
      denied: ["/Users/ada/.ssh", '/Users/ada/we"ird'],
      fermixHome: "/Users/ada/.fermix",
      fermixWorkspace: "/Users/ada/.fermix/workspace",
    });
    const lines = profile.trim().split("\n");
    expect(lines[0]).toBe("(version 1)");
    expect(lines[2]).toBe("(deny file-write*)");
    expect(lines[3]).toContain('(subpath "/Users/ada/proj")');
    expect(lines.at(-1)).toStartWith("(deny file-read* file-write* ");
    expect(lines.at(-1)).toContain('(subpath "/Users/ada/we\\"ird")');
    expect(lines.at(-1)).toContain('(require-not (subpath "/Users/ada/.fermix/workspace"))');
  });
});
