import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BYTECODE_ORDER_DIR, bytecodeOrderFiles } from "../../src/release/bytecode-order.ts";

describe("the bytecode layout profiles build.ts passes to Bun", () => {
  test("are the folder's .order files, the most common run (lowest rank) first", () => {
    const dir = mkdtempSync(join(tmpdir(), "fermix-order-"));
    try {
      for (const name of ["3-oneshot.order", "1-daemon.order", "README", "2-ask.order"])
        writeFileSync(join(dir, name), "v2\n");
      expect(bytecodeOrderFiles(dir)).toEqual(
        ["1-daemon.order", "2-ask.order", "3-oneshot.order"].map((n) => join(dir, n)),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("are none when the folder is absent: the build lays the bytecode out as Bun does by default", () => {
    expect(bytecodeOrderFiles(join(tmpdir(), "fermix-no-such-order-dir"))).toEqual([]);
  });

  test("are committed for the daemon's boot, an ask through it and an in-process ask", () => {
    expect(bytecodeOrderFiles().map((path) => path.slice(BYTECODE_ORDER_DIR.length + 1))).toEqual([
      "1-daemon.order",
      "2-ask.order",
      "3-oneshot.order",
    ]);
  });
});
