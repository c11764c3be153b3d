import { describe, expect, test } from "bun:test";
import { FermixError } from "../../src/error.ts";
import { createLoopbackDoor, useFakeServers } from "./loopback-door.ts";

const PUBLIC_A = "93.184.216.34";
const PUBLIC_B = "1.1.1.1";

const names: Record<string, string[]> = {
  "internal.example.test": ["10.1.2.3"],
  "mixed.example.test": [PUBLIC_B, "10.0.0.5"],
  "v6private.example.test": ["fd12:3456::1"],
  "mapped.example.test": ["::ffff:169.254.169.254"],
  "rebind.example.test": [PUBLIC_B, "127.0.0.1"],
  "www.example.com": [PUBLIC_A],
  "example.com": [PUBLIC_A],
};

async function refusal(promise: Promise<unknown>): Promise<FermixError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FermixError);
  return err as FermixError;
}

// Each URL and a pattern its refusal must contain, so the reason is named and not just "blocked".
const refused: [string, RegExp][] = [
  ["http://127.0.0.1/", /127\.0\.0\.1 is a loopback address/],
  ["http://localhost/", /localhost is a localhost name/],
  ["http://localhost./", /localhost\. is a localhost name/],
  ["http://LOCALHOST/", /localhost is a localhost name/],
  ["http://foo.localhost/", /foo\.localhost is a localhost name/],
  ["http://printer.local/", /printer\.local is a \.local name/],
  ["http://printer.local./", /\.local name/],
  ["http://metadata.google.internal/", /metadata\.google\.internal is an \.internal name/],
  ["http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254 is link-local/],
  ["http://2130706433/", /127\.0\.0\.1 is a loopback address/],
  ["http://0177.0.0.1/", /127\.0\.0\.1 is a loopback address/],
  ["http://0x7f000001/", /127\.0\.0\.1 is a loopback address/],
  ["http://0x7f.1/", /127\.0\.0\.1 is a loopback address/],
  ["http://127.1/", /127\.0\.0\.1 is a loopback address/],
  ["http://%31%32%37.0.0.1/", /127\.0\.0\.1 is a loopback address/],
  ["http://127.0.0.1../", /127\.0\.0\.1 is a loopback address/],
  ["http://0/", /0\.0\.0\.0 is in 0\.0\.0\.0\/8/],
  ["http://[::1]/", /::1 is in ::\/96/],
  ["http://[::]/", /:: is in ::\/96/],
  ["http://[::127.0.0.1]/", /::\/96/],
  ["http://[::ffff:127.0.0.1]/", /IPv4-mapped address for 127\.0\.0\.1, which is a loopback address/],
  ["http://[::ffff:7f00:1]/", /IPv4-mapped address for 127\.0\.0\.1/],
  ["http://[::ffff:a9fe:a9fe]/", /IPv4-mapped address for 169\.254\.169\.254, which is link-local/],
  ["http://[fd00:ec2::254]/", /cloud metadata service/],
  ["http://10.0.0.1/", /private address \(10\.0\.0\.0\/8\)/],
  ["http://192.168.1.1/", /private address \(192\.168\.0\.0\/16\)/],
  ["http://172.16.0.1/", /private address \(172\.16\.0\.0\/12\)/],
  ["http://172.31.255.255/", /172\.16\.0\.0\/12/],
  ["http://100.64.0.1/", /carrier-grade NAT/],
  ["http://192.0.0.8/", /IETF protocol assignments/],
  ["http://192.0.2.10/", /documentation/],
  ["http://192.88.99.1/", /6to4 relay/],
  ["http://198.18.0.1/", /benchmarking/],
  ["http://198.51.100.7/", /documentation/],
  ["http://203.0.113.9/", /documentation/],
  ["http://224.0.0.1/", /multicast or reserved/],
  ["http://255.255.255.255/", /multicast or reserved/],
  ["http://[fe80::1]/", /link-local address \(fe80::\/10\)/],
  ["http://[fec0::1]/", /site-local/],
  ["http://[fc00::1]/", /unique local/],
  ["http://[ff02::1]/", /multicast address/],
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", /Teredo/],
  ["http://[64:ff9b::7f00:1]/", /NAT64 address \(64:ff9b::\/96\) for 127\.0\.0\.1/],
  ["http://[64:ff9b::a00:1]/", /NAT64 .* for 10\.0\.0\.1/],
  ["http://[2002:7f00:1::]/", /6to4 address \(2002::\/16\) for 127\.0\.0\.1/],
  ["http://[2002:a9fe:a9fe::1]/", /6to4 .* for 169\.254\.169\.254/],
  ["http://user:pw@example.com/", /user name or password/],
  ["http://user@example.com/", /user name or password/],
  ["file:///etc/passwd", /only http and https URLs may be fetched, not file:/],
  ["ftp://x/", /not ftp:/],
  ["gopher://x:70/_GET", /not gopher:/],
  ["data:text/plain,hello", /not data:/],
  ["javascript:alert(1)", /not javascript:/],
  ["ws://example.com/", /not ws:/],
  ["not a url", /not a valid URL/],
  ["http://internal.example.test/", /internal\.example\.test resolves to 10\.1\.2\.3, which is a private address/],
  ["http://mixed.example.test/", /mixed\.example\.test resolves to 10\.0\.0\.5/],
  ["http://rebind.example.test/", /resolves to 127\.0\.0\.1, which is a loopback address/],
  ["https://v6private.example.test/", /resolves to fd12:3456::1, which is a unique local/],
  ["https://mapped.example.test/", /IPv4-mapped address for 169\.254\.169\.254/],
];

describe("the SSRF floor refuses", () => {
  test.each(refused)("%s", async (url, why) => {
    const door = createLoopbackDoor({ names });
    const err = await refusal(door.net(url));
    expect(err.code).toBe("net_blocked");
    expect(err.message).toMatch(why);
    expect(door.calls).toHaveLength(0);
  });

  test("userinfo never appears in the refusal", async () => {
    const door = createLoopbackDoor({ names });
    const err = await refusal(door.net("http://alice:hunter2@example.com/"));
    expect(err.message).not.toContain("hunter2");
    expect(JSON.stringify(err.data)).not.toContain("hunter2");
  });
});

describe("redirects to private targets are refused at the hop", () => {
  const serve = useFakeServers();

  for (const location of [
    "http://127.0.0.1/admin",
    "http://[::ffff:10.0.0.1]/",
    "http://2130706433/",
    "http://internal.example.test/secret",
    "http://metadata.google.internal/computeMetadata/v1/",
    "file:///etc/passwd",
  ]) {
    test(location, async () => {
      let hits = 0;
      const fake = serve(() => {
        hits++;
        return new Response(null, { status: 302, headers: { location } });
      });
      const door = createLoopbackDoor({ names, routes: { [PUBLIC_A]: fake.origin } });
      const err = await refusal(door.net("http://www.example.com/start"));
      expect(err.code).toBe("net_blocked");
      expect(err.message).toContain("refused redirect from http://www.example.com/start");
      expect(err.data.from).toBe("http://www.example.com/start");
      expect(hits).toBe(1);
      expect(door.calls).toHaveLength(1);
    });
  }

  test("a name that is public at the first hop and private at the second", async () => {
    const fake = serve(() => new Response(null, { status: 301, headers: { location: "http://mixed.example.test/" } }));
    const door = createLoopbackDoor({ names, routes: { [PUBLIC_A]: fake.origin, [PUBLIC_B]: fake.origin } });
    const err = await refusal(door.net("http://www.example.com/"));
    expect(err.message).toMatch(/refused redirect from .*mixed\.example\.test resolves to 10\.0\.0\.5/);
    expect(door.calls.map((call) => call.url)).toEqual([`http://${PUBLIC_A}:80/`]);
  });
});
