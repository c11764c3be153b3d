import { blockedAddressReason, blockedHostNameReason, parseIPv4, parseIPv6 } from "../../net/address-policy.ts";
import { resolveWithDns } from "../../net/dns-resolver.ts";
import { NetBlocked, NetFailed } from "../../net/net-error.ts";
import type { Resolver } from "../../net/types.ts";

/** The fetch the MCP SDK's HTTP transport calls: a streaming Response, never buffered (SSE streams stay open). */
export type StreamingFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * The outbound door for an owner's `[mcp.servers.<n>] url`. The SSRF floor of the guarded fetch (net/) with one
 * exception the owner made by writing the URL: loopback is allowed. Every other private, link-local or
 * metadata address stays refused, DNS answers are vetted and the connection pinned to a vetted one, requests
 * may only go to the configured origin, and redirects are never followed. Responses stream, because the
 * streamable-HTTP transport reads server-sent events from them for as long as the session lasts.
 */
export function ownerFetch(
  configured: string,
  deps: { resolve?: Resolver; fetch?: typeof fetch } = {},
): StreamingFetch {
  const resolve = deps.resolve ?? resolveWithDns;
  const send = deps.fetch ?? fetch;
  const origin = new URL(configured);
  return async (input, init = {}) => {
    const url = new URL(String(input));
    if (url.protocol !== origin.protocol || url.host !== origin.host) {
      throw NetBlocked(`refused ${url.href}: only ${origin.origin}, the configured MCP server, may be reached`, {
        url: url.href,
        host: url.hostname,
        rule: "origin",
      });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw NetBlocked(`refused ${url.href}: only http and https`, { url: url.href, rule: "scheme" });
    }
    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    const addresses = await vetted(url, host, resolve);
    const headers = new Headers(init.headers);
    headers.set("host", url.host);
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    const literal = isLiteral(host);
    let lastError: unknown;
    for (const address of addresses) {
      const pinned = `${url.protocol}//${address.includes(":") ? `[${address}]` : address}:${port}${url.pathname}${url.search}`;
      try {
        return await send(pinned, {
          ...init,
          headers,
          redirect: "manual",
          // The certificate is checked against the configured name, not the address dialled.
          ...(url.protocol === "https:" && !literal ? { tls: { serverName: host } } : {}),
        } as RequestInit);
      } catch (err) {
        if (init.signal?.aborted) throw err;
        lastError = err;
      }
    }
    throw NetFailed(`could not connect to ${url.host}: ${(lastError as Error)?.message ?? "no address"}`, {
      url: url.href,
      host,
      kind: "connect",
    });
  };
}

function isLiteral(host: string): boolean {
  return parseIPv4(host) !== undefined || parseIPv6(host) !== undefined;
}

/** 127.0.0.0/8 and ::1: this machine, which the owner may point at. */
export function isLoopback(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4 !== undefined) return v4 >>> 24 === 127;
  const v6 = parseIPv6(address);
  return v6?.slice(0, 7).every((g) => g === 0) === true && v6[7] === 1;
}

async function vetted(url: URL, host: string, resolve: Resolver): Promise<string[]> {
  const refuse = (address: string, why: string) =>
    NetBlocked(`refused ${url.href}: ${address} is ${why}; an MCP server url may be public or on this machine only`, {
      url: url.href,
      host,
      address,
      rule: "address",
    });
  if (isLiteral(host)) {
    const why = isLoopback(host) ? undefined : blockedAddressReason(host);
    if (why) throw refuse(host, why);
    return [host];
  }
  const name = host.toLowerCase().replace(/\.+$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return ["127.0.0.1"];
  const nameWhy = blockedHostNameReason(name);
  if (nameWhy) throw refuse(host, nameWhy);
  let answers: string[];
  try {
    answers = [...new Set(await resolve(name))];
  } catch (err) {
    throw NetFailed(`could not resolve ${host}: ${(err as Error).message}`, { url: url.href, host, kind: "dns" });
  }
  if (!answers.length) throw NetFailed(`could not resolve ${host}: no addresses`, { url: url.href, host, kind: "dns" });
  // One refused answer refuses the name: a resolver that mixes them could steer the connect to either.
  for (const address of answers) {
    const why = isLoopback(address) ? undefined : blockedAddressReason(address);
    if (why) throw refuse(address, why);
  }
  return answers;
}
