/**
 * A real guarded fetch whose last step is redirected to loopback: names resolve from a fixed table (never real DNS),
 * the whole guard runs, and only the final socket for a chosen PUBLIC test address is pointed at a fake server on
 * 127.0.0.1. Any other address throws, so a test can never reach the network.
 */

import { afterEach } from "bun:test";
import type { Server } from "bun";
import { createGuardedFetch, type Limits } from "../../src/net/guarded-fetch.ts";

export type DoorCall = { url: string; init: BunFetchRequestInit };

export type DoorOptions = {
  /** Host name → its A/AAAA answers. */
  names?: Record<string, string[]>;
  /** Public test address (as it appears in a URL, IPv6 bracketed) → the loopback origin that stands in for it. */
  routes?: Record<string, string>;
  /** Addresses that behave as if nothing listens there (ECONNREFUSED before any byte is sent). */
  refuse?: string[];
  defaults?: Partial<Limits>;
};

export function createLoopbackDoor(options: DoorOptions = {}) {
  const calls: DoorCall[] = [];
  const lookups: string[] = [];
  const net = createGuardedFetch({
    defaults: options.defaults,
    resolve: async (host) => {
      lookups.push(host);
      const answers = options.names?.[host];
      if (answers === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      return answers;
    },
    fetch: async (url, init) => {
      calls.push({ url, init });
      const dialled = new URL(url);
      if (options.refuse?.includes(dialled.hostname)) {
        throw Object.assign(new TypeError("ECONNREFUSED: Unable to connect"), { code: "ECONNREFUSED" });
      }
      const origin = options.routes?.[dialled.hostname];
      if (origin === undefined) throw new Error(`test door: ${url} is not a routed test address; refusing to dial it`);
      return fetch(new URL(`${dialled.pathname}${dialled.search}`, origin).href, init);
    },
  });
  return { net, calls, lookups };
}

/** Starts fake servers on 127.0.0.1 and stops them after each test of the file that calls it. */
export function useFakeServers() {
  const running: Server<unknown>[] = [];
  afterEach(() => {
    for (const server of running.splice(0)) server.stop(true);
  });
  return (handler: (request: Request) => Response | Promise<Response>) => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
    running.push(server);
    return { server, origin: server.url.origin };
  };
}
