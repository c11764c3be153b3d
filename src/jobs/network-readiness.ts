import { connect } from "node:net";
import { createBackoff } from "../net/backoff.ts";

export type ReadinessOptions = {
  /** The first wait between attempts; later ones grow by the shared backoff rule, to 4 × this. */
  intervalMs?: number;
  /** Per connect attempt. */
  connectTimeoutMs?: number;
  /** All attempts together; then the run goes ahead anyway (the probe is advisory). */
  budgetMs?: number;
  log?: (msg: string) => void;
};

/**
 * Before a scheduled run's first model call: can a TCP connection to the provider's host be opened? A run that
 * fires as the laptop wakes often finds the network not up yet; waiting a few seconds here beats a failed run.
 * Advisory: after the budget it logs and returns, and the run meets whatever the network is.
 */
export async function waitForNetwork(baseUrl: string, opts: ReadinessOptions = {}): Promise<boolean> {
  const { intervalMs = 1000, connectTimeoutMs = 2000, budgetMs = 15_000 } = opts;
  const url = new URL(baseUrl);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const deadline = Date.now() + budgetMs;
  const waits = createBackoff({ initialMs: intervalMs, maxMs: intervalMs * 4 });
  for (let attempt = 1; ; attempt++) {
    if (await canConnect(host, port, Math.min(connectTimeoutMs, Math.max(1, deadline - Date.now())))) return true;
    const wait = waits.next();
    if (Date.now() + wait >= deadline) {
      opts.log?.(
        `network not ready: ${host}:${port} did not accept a connection in ${attempt} attempts; running anyway`,
      );
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
