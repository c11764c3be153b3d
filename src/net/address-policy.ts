/**
 * The SSRF floor: which addresses and host names a tool or plugin may never reach. Everything here is pure
 * and judges one string; `parse-target.ts` and `guarded-fetch.ts` decide when to ask.
 *
 * Inputs are expected in canonical form (what `new URL` prints for a literal, what DNS returns). Anything
 * that does not parse as a canonical address is treated as not public: the floor fails closed.
 */

type V4Range = { base: number; bits: number; why: string };

// Order matters only for the message: the first match names the reason.
const V4_BLOCKED: V4Range[] = [
  { base: v4(0, 0, 0, 0), bits: 8, why: "in 0.0.0.0/8 ('this network', which reaches the local host)" },
  { base: v4(10, 0, 0, 0), bits: 8, why: "a private address (10.0.0.0/8)" },
  { base: v4(100, 64, 0, 0), bits: 10, why: "carrier-grade NAT shared space (100.64.0.0/10)" },
  { base: v4(127, 0, 0, 0), bits: 8, why: "a loopback address (127.0.0.0/8)" },
  { base: v4(169, 254, 0, 0), bits: 16, why: "link-local, where cloud metadata services live (169.254.0.0/16)" },
  { base: v4(172, 16, 0, 0), bits: 12, why: "a private address (172.16.0.0/12)" },
  { base: v4(192, 0, 0, 0), bits: 24, why: "reserved for IETF protocol assignments (192.0.0.0/24)" },
  { base: v4(192, 0, 2, 0), bits: 24, why: "reserved for documentation (192.0.2.0/24)" },
  { base: v4(192, 88, 99, 0), bits: 24, why: "the 6to4 relay anycast range (192.88.99.0/24)" },
  { base: v4(192, 168, 0, 0), bits: 16, why: "a private address (192.168.0.0/16)" },
  { base: v4(198, 18, 0, 0), bits: 15, why: "reserved for benchmarking (198.18.0.0/15)" },
  { base: v4(198, 51, 100, 0), bits: 24, why: "reserved for documentation (198.51.100.0/24)" },
  { base: v4(203, 0, 113, 0), bits: 24, why: "reserved for documentation (203.0.113.0/24)" },
  { base: v4(224, 0, 0, 0), bits: 3, why: "multicast or reserved (224.0.0.0 and above)" },
];

/** True when `ip` (an IPv4 or IPv6 literal, brackets allowed) is an address tools may connect to. */
export function isPublicAddress(ip: string): boolean {
  return blockedAddressReason(ip) === undefined;
}

/** Why `ip` is refused ("a loopback address (127.0.0.0/8)"), or undefined when it is public. */
export function blockedAddressReason(ip: string): string | undefined {
  const text = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return blockedV4Reason(v4);
  const v6 = parseIPv6(text);
  if (v6 !== undefined) return blockedV6Reason(v6);
  return "not a valid IP address";
}

/** Why a host name is refused before any DNS lookup ("localhost"), or undefined when it may be resolved. */
export function blockedHostNameReason(host: string): string | undefined {
  // "localhost." is the same name as "localhost" to a resolver; judge the name without its root dots.
  const name = host.toLowerCase().replace(/\.+$/, "");
  if (name === "") return "an empty host name";
  if (name === "localhost" || name.endsWith(".localhost")) return "a localhost name, which always means this machine";
  if (name.endsWith(".local")) return "a .local name (multicast DNS on the local network)";
  if (name.endsWith(".internal")) return "an .internal name (private network and cloud metadata names)";
  return undefined;
}

/** A dotted-quad IPv4 address as an unsigned 32-bit number; undefined for anything not canonical. */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    // Leading zeros are refused: "010" is octal to some parsers and decimal to others.
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

/** An IPv6 address as eight 16-bit groups (zone ids dropped, a trailing dotted IPv4 allowed). */
export function parseIPv6(text: string): number[] | undefined {
  const zone = text.indexOf("%");
  const address = zone === -1 ? text : text.slice(0, zone);
  if (!address.includes(":")) return undefined;
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0]!);
  const tail = halves.length === 2 ? parseGroups(halves[1]!) : [];
  if (head === undefined || tail === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function parseGroups(text: string): number[] | undefined {
  if (text === "") return [];
  const pieces = text.split(":");
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (index === pieces.length - 1 && piece.includes(".")) {
      const embedded = parseIPv4(piece);
      if (embedded === undefined) return undefined;
      groups.push(Math.floor(embedded / 0x10000), embedded % 0x10000);
    } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
      groups.push(Number.parseInt(piece, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

function blockedV4Reason(address: number): string | undefined {
  for (const range of V4_BLOCKED) {
    if (inV4Range(address, range.base, range.bits)) return range.why;
  }
  return undefined;
}

function blockedV6Reason(g: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const low32 = g6 * 0x10000 + g7;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;

  // AWS's IPv6 metadata endpoint is inside fc00::/7 too; naming it exactly makes the refusal readable.
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) {
    return "the cloud metadata service address (fd00:ec2::254)";
  }
  if (upperZero && g5 === 0) return "in ::/96 (unspecified, loopback or IPv4-compatible)";
  if (upperZero && g5 === 0xffff) return embedded("an IPv4-mapped address", low32);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return embedded("a NAT64 address (64:ff9b::/96)", low32);
  }
  if (g0 === 0x2002) return embedded("a 6to4 address (2002::/16)", g1 * 0x10000 + g2);
  if (g0 === 0x2001 && g1 === 0) return "a Teredo tunnel address (2001::/32)";
  if ((g0 & 0xfe00) === 0xfc00) return "a unique local (private) address (fc00::/7)";
  if ((g0 & 0xffc0) === 0xfe80) return "a link-local address (fe80::/10)";
  if ((g0 & 0xffc0) === 0xfec0) return "a site-local address (fec0::/10)";
  if ((g0 & 0xff00) === 0xff00) return "a multicast address (ff00::/8)";
  return undefined;
}

// Addresses that carry an IPv4 address inside are judged by that address: ::ffff:127.0.0.1 is loopback.
function embedded(kind: string, address: number): string | undefined {
  const reason = blockedV4Reason(address);
  return reason === undefined ? undefined : `${kind} for ${formatIPv4(address)}, which is ${reason}`;
}

function inV4Range(address: number, base: number, bits: number): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(address / size) === Math.floor(base / size);
}

function v4(a: number, b: number, c: number, d: number): number {
  return ((a * 256 + b) * 256 + c) * 256 + d;
}

function formatIPv4(address: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256).join(".");
}
