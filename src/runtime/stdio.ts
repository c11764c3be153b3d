import { bun, deno, onBun } from "./host.ts";

/*
 * The process's standard streams, written without Node's process.stdout: on the compiled Bun binary,
 * touching that stream costs ~10 ms of start-up, which every `fermix ask` and `--version` would pay.
 */

export function writeStdout(data: string | Uint8Array): Promise<number> {
  return onBun ? bun().write(bun().stdout, data) : writeAll(deno().stdout, data);
}

export function writeStderr(data: string | Uint8Array): Promise<number> {
  return onBun ? bun().write(bun().stderr, data) : writeAll(deno().stderr, data);
}

/** Standard input as a byte stream. */
export function stdinStream(): ReadableStream<Uint8Array> {
  return onBun ? bun().stdin.stream() : deno().stdin.readable;
}

async function writeAll(
  out: { write(bytes: Uint8Array): Promise<number> },
  data: string | Uint8Array,
): Promise<number> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let done = 0;
  try {
    while (done < bytes.length) done += await out.write(bytes.subarray(done));
  } catch (err) {
    // Deno names a closed reader BrokenPipe; callers (and Bun) speak of EPIPE.
    if ((err as Error)?.name === "BrokenPipe") throw Object.assign(new Error("EPIPE: broken pipe"), { code: "EPIPE" });
    throw err;
  }
  return done;
}
