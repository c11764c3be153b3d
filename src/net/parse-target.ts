import { blockedAddressReason, blockedHostNameReason, parseIPv4 } from "./address-policy.ts";
import { NetBlocked } from "./net-error.ts";

/** A URL the door has parsed and judged on its normalised host; only DNS answers remain to be vetted. */
export type Target = {
  /** Normalised by the WHATWG parser, exactly as fetch would see it. */
  url: URL;
  secure: boolean;
  /** The host name, or the IP literal without brackets. */
  host: string;
  /** The host is an IP literal, so there is nothing to resolve. */
  literal: boolean;
  port: number;
  /** What the server must see in `Host` (name plus any non-default port). */
  hostHeader: string;
};

/**
 * Parses `input` (relative to `base` when given) and refuses it when the floor says so. The judgement is made
 * on what `new URL` produced, never on the raw text: `http://0x7f.1/`, `http://2130706433/` and
 * `http://[::ffff:7f00:1]/` all arrive here as the loopback address they are.
 */
export function parseTarget(input: string, base?: string | URL): Target {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw NetBlocked(`refused ${input}: not a valid URL`, { url: input, rule: "invalid_url" });
  }
  const shown = url.href;

  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw NetBlocked(`refused ${shown}: only http and https URLs may be fetched, not ${url.protocol}`, {
      url: shown,
      rule: "scheme",
    });
  }
  // Credentials in a URL leak into logs and Referer headers, and `user@host` is a classic disguise.
  if (url.username !== "" || url.password !== "") {
    throw NetBlocked(`refused ${redactUserinfo(url)}: URLs with a user name or password are not allowed`, {
      url: redactUserinfo(url),
      host: url.hostname,
      rule: "userinfo",
    });
  }

  const bracketed = url.hostname.startsWith("[");
  const host = bracketed ? url.hostname.slice(1, -1) : url.hostname;
  // URL leaves "127.0.0.1.." as a name, but a resolver may still read it as the address; judge it as one.
  const bare = host.replace(/\.+$/, "");
  const literal = bracketed || parseIPv4(bare) !== undefined;

  if (literal) {
    const why = blockedAddressReason(bare);
    if (why !== undefined) {
      throw NetBlocked(`refused ${shown}: ${bare} is ${why}`, { url: shown, host, address: bare, rule: "address" });
    }
  } else {
    const why = blockedHostNameReason(host);
    if (why !== undefined) {
      throw NetBlocked(`refused ${shown}: ${host} is ${why}`, { url: shown, host, rule: "host_name" });
    }
  }

  url.hash = "";
  const secure = url.protocol === "https:";
  return {
    url,
    secure,
    host: literal ? bare : host,
    literal,
    port: url.port === "" ? (secure ? 443 : 80) : Number(url.port),
    hostHeader: url.host,
  };
}

/** Origin equality, for deciding which headers survive a redirect. */
export function sameOrigin(a: Target, b: Target): boolean {
  return a.url.protocol === b.url.protocol && a.host === b.host && a.port === b.port;
}

function redactUserinfo(url: URL): string {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}
