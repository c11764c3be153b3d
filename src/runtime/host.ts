/**
 * Which runtime runs us. The release binary is a Bun `--compile` build; the source tree also runs on
 * Deno 2 (`deno run -A src/main.ts`). Only the files of src/runtime/ may name either runtime's globals
 * or built-in modules — a test greps the rest of src/ — so moving runtimes means changing this folder.
 */

/** The subset of Deno's global this folder uses (no Deno type package is installed: Bun's types are). */
export type DenoGlobal = {
  version: { deno: string };
  execPath(): string;
  stdin: { readable: ReadableStream<Uint8Array> };
  stdout: DenoWriter;
  stderr: DenoWriter;
  serve(
    options: { path?: string; hostname?: string; port?: number; onListen?: (addr: unknown) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { addr: { port?: number; path?: string }; shutdown(): Promise<void>; finished: Promise<void> };
  createHttpClient(options: { proxy: { transport: "unix"; path: string } }): { close(): void };
};
type DenoWriter = { write(bytes: Uint8Array): Promise<number>; writeSync(bytes: Uint8Array): number };

const globals = globalThis as { Bun?: typeof Bun; Deno?: DenoGlobal };

/** True under Bun (the compiled binary, `bun src/main.ts`, `bun test`); false under Deno. */
export const onBun = globals.Bun !== undefined;

/** Bun's global; callers check `onBun` first. */
export function bun(): typeof Bun {
  return globals.Bun as typeof Bun;
}

/** Deno's global; callers check `onBun` first. */
export function deno(): DenoGlobal {
  return globals.Deno as DenoGlobal;
}

/** The runtime's name and version, for `fermix --version --verbose` and doctor. */
export function runtimeName(): string {
  return onBun ? `bun ${bun().version}` : `deno ${deno().version.deno}`;
}

/**
 * A node: built-in loaded on first use rather than imported at the top: on Bun, node:fs or
 * node:child_process costs milliseconds of every CLI start when imported eagerly.
 */
export function nodeModule<T>(name: string): T {
  return process.getBuiltinModule(name) as T;
}
