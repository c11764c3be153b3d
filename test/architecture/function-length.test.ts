import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { functionLengths } from "./_function-lengths.ts";

const SRC = resolve(import.meta.dirname, "..", "..", "src");

test("no function in src/ is longer than 250 lines (a long factory becomes an interface with smaller parts)", () => {
  const long = functionLengths(SRC)
    .filter((f) => f.lines > 250)
    .map((f) => `src/${f.file}:${f.line} ${f.name}: ${f.lines} lines`);
  expect(long).toEqual([]);
});

test("the composition root stays lean: src/app.ts is at most 200 lines", () => {
  expect(readFileSync(resolve(SRC, "app.ts"), "utf8").trimEnd().split("\n").length).toBeLessThanOrEqual(200);
});
