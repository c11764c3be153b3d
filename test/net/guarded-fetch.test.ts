import { describe, expect, test } from "bun:test";
import { FermixError } from "../../src/error.ts";
import { createLoopbackDoor, useFakeServers } from "./loopback-door.ts";

const A = "93.184.216.34";
const B = "1.1.1.1";
const V6 = "2606:4700:4700::1111";

const names = {
  "www.example.com": [A],
  "api.example.net": [B],
  "dual.example.com": [V6, A],
};

const serve = useFakeServers();

type Seen = { method: string; url: string; headers: Record<string, string>; body: string };

/** A fake that records what reached it and answers with `reply`. */
function recording(reply: (request: Request, seen: Seen[]) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fake = serve(async (request) => {
    const entry = {
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: await request.text(),
    };
    seen.push(entry);
    return reply(request, seen);
  });
  return { ...fake, seen };
}

async function failure(promise: Promise<unknown>): Promise<FermixError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FermixError);
  return err as FermixError;
}

describe("a public name end to end", () => {
  test("resolves once, dials the vetted address and sends the original Host", async () => {
    const fake = recording(() => new Response("hello", { headers: { "content-type": "text/plain" } }));
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    const response = await door.net("http://www.example.com/path?q=1#frag", { headers: { "X-Trace": "t1" } });

    expect(response.status).toBe(200);
    expect(new TextDecoder().decode(response.body)).toBe("hello");
    expect(response.truncated).toBe(false);
    expect(response.url).toBe("http://www.example.com/path?q=1");
    expect(response.headers.get("content-type")).toBe("text/plain");
    expect(door.lookups).toEqual(["www.example.com"]);
    expect(door.calls[0]!.url).toBe(`http://${A}:80/path?q=1`);
    expect(door.calls[0]!.init.redirect).toBe("manual");
    expect(fake.seen[0]!.headers.host).toBe("www.example.com");
    expect(fake.seen[0]!.headers["x-trace"]).toBe("t1");
    expect(fake.seen[0]!.url).toBe("http://www.example.com/path?q=1");
  });

  test("a non-default port stays in the Host header and the dialled URL", async () => {
    const fake = recording(() => new Response("ok"));
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    await door.net("http://WWW.Example.com:8080/x");
    expect(door.calls[0]!.url).toBe(`http://${A}:8080/x`);
    expect(fake.seen[0]!.headers.host).toBe("www.example.com:8080");
  });

  test("https checks the certificate against the name while dialling the address", async () => {
    const fake = recording(() => new Response("secure"));
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    await door.net("https://www.example.com/login");
    expect(door.calls[0]!.url).toBe(`https://${A}:443/login`);
    expect(door.calls[0]!.init.tls?.serverName).toBe("www.example.com");
    expect(fake.seen[0]!.headers.host).toBe("www.example.com");
  });

  test("a fully qualified name keeps its root dot in Host but not in SNI", async () => {
    const fake = recording(() => new Response("fqdn"));
    const door = createLoopbackDoor({ names: { "www.example.com.": [A] }, routes: { [A]: fake.origin } });
    await door.net("https://www.example.com./");
    expect(door.lookups).toEqual(["www.example.com."]);
    expect(door.calls[0]!.init.tls?.serverName).toBe("www.example.com");
    expect(fake.seen[0]!.headers.host).toBe("www.example.com.");
  });

  test("an IPv6 answer is bracketed, and a refused address falls through to the next vetted one", async () => {
    const fake = recording(() => new Response("v4"));
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin }, refuse: [`[${V6}]`] });
    const response = await door.net("http://dual.example.com/");
    expect(new TextDecoder().decode(response.body)).toBe("v4");
    expect(door.calls.map((call) => call.url)).toEqual([`http://[${V6}]:80/`, `http://${A}:80/`]);
    expect(door.lookups).toEqual(["dual.example.com"]);
  });

  test("a public IP literal is dialled as is, without a lookup", async () => {
    const fake = recording(() => new Response("literal"));
    const door = createLoopbackDoor({ routes: { [B]: fake.origin } });
    await door.net(`https://${B}/`);
    expect(door.lookups).toEqual([]);
    expect(door.calls[0]!.init.tls).toBeUndefined();
    expect(fake.seen[0]!.headers.host).toBe(B);
  });

  test("an unknown name and an unreachable address are net_failed", async () => {
    const door = createLoopbackDoor({ names: { "down.example.com": [B] }, refuse: [B] });
    const dns = await failure(door.net("http://nowhere.example.com/"));
    expect(dns.code).toBe("net_failed");
    expect(dns.data.kind).toBe("dns");
    expect(dns.message).toContain("could not resolve nowhere.example.com");
    const connect = await failure(door.net("http://down.example.com/"));
    expect(connect.code).toBe("net_failed");
    expect(connect.data.kind).toBe("connect");
  });
});

describe("redirects", () => {
  test("between two public names: re-resolved, Host follows, credentials stripped across origins", async () => {
    const second = recording(() => new Response("arrived"));
    const first = recording(
      () => new Response(null, { status: 302, headers: { location: "http://api.example.net/v2" } }),
    );
    const door = createLoopbackDoor({ names, routes: { [A]: first.origin, [B]: second.origin } });
    const response = await door.net("http://www.example.com/v1", {
      headers: { Authorization: "Bearer secret", Cookie: "s=1", "Proxy-Authorization": "p", "X-Keep": "yes" },
    });

    expect(response.status).toBe(200);
    expect(response.url).toBe("http://api.example.net/v2");
    expect(new TextDecoder().decode(response.body)).toBe("arrived");
    expect(door.lookups).toEqual(["www.example.com", "api.example.net"]);
    expect(first.seen[0]!.headers.authorization).toBe("Bearer secret");
    const arrived = second.seen[0]!.headers;
    expect(arrived.host).toBe("api.example.net");
    expect(arrived.authorization).toBeUndefined();
    expect(arrived.cookie).toBeUndefined();
    expect(arrived["proxy-authorization"]).toBeUndefined();
    expect(arrived["x-keep"]).toBe("yes");
  });

  test("a relative Location on the same origin keeps the credentials", async () => {
    const fake = recording((request) =>
      new URL(request.url).pathname === "/old"
        ? new Response(null, { status: 301, headers: { location: "new?x=1" } })
        : new Response("moved"),
    );
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    const response = await door.net("http://www.example.com/old", { headers: { authorization: "Bearer same" } });
    expect(response.url).toBe("http://www.example.com/new?x=1");
    expect(fake.seen.map((s) => s.headers.authorization)).toEqual(["Bearer same", "Bearer same"]);
  });

  test("303 turns a POST into a GET without a body; 307 keeps both", async () => {
    for (const [status, method, body] of [
      [303, "GET", ""],
      [302, "GET", ""],
      [307, "POST", '{"a":1}'],
      [308, "POST", '{"a":1}'],
    ] as const) {
      const fake = recording((request) =>
        new URL(request.url).pathname === "/form"
          ? new Response(null, { status, headers: { location: "/done" } })
          : new Response("done"),
      );
      const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
      await door.net("http://www.example.com/form", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"a":1}',
      });
      const followed = fake.seen[1]!;
      expect(followed.method).toBe(method);
      expect(followed.body).toBe(body);
      expect(followed.headers["content-type"]).toBe(method === "GET" ? undefined : "application/json");
    }
  });

  test("the hop cap stops a redirect loop", async () => {
    const fake = recording(() => new Response(null, { status: 302, headers: { location: "/again" } }));
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    const err = await failure(door.net("http://www.example.com/again"));
    expect(err.code).toBe("net_blocked");
    expect(err.data.rule).toBe("redirect_limit");
    expect(err.message).toContain("stopped after 5 redirects");
    expect(fake.seen).toHaveLength(6);

    const short = await failure(door.net("http://www.example.com/again", { maxRedirects: 2 }));
    expect(short.message).toContain("stopped after 2 redirects");
    expect(fake.seen).toHaveLength(6 + 3);
  });

  test("maxRedirects 0 hands back the 3xx as is", async () => {
    const fake = recording(() => new Response("see other", { status: 302, headers: { location: "http://10.0.0.1/" } }));
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    const response = await door.net("http://www.example.com/", { maxRedirects: 0 });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://10.0.0.1/");
    expect(fake.seen).toHaveLength(1);
  });
});

describe("limits", () => {
  test("the size cap truncates while streaming", async () => {
    const fake = recording(() => new Response("x".repeat(100_000)));
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    const response = await door.net("http://www.example.com/big", { maxBytes: 1000 });
    expect(response.body.byteLength).toBe(1000);
    expect(response.truncated).toBe(true);

    const exact = await door.net("http://www.example.com/big", { maxBytes: 100_000 });
    expect(exact.body.byteLength).toBe(100_000);
    expect(exact.truncated).toBe(false);
  });

  test("a body that never ends is cut at the cap from the factory defaults", async () => {
    const chunk = new Uint8Array(4096).fill(97);
    const fake = serve(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(chunk);
            },
          }),
        ),
    );
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin }, defaults: { maxBytes: 10_000 } });
    const response = await door.net("http://www.example.com/endless");
    expect(response.body.byteLength).toBe(10_000);
    expect(response.truncated).toBe(true);
  });

  test("a server that never answers times out as net_failed", async () => {
    const fake = serve(() => new Promise<Response>(() => {}));
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    const err = await failure(door.net("http://www.example.com/slow", { timeoutMs: 100 }));
    expect(err.code).toBe("net_failed");
    expect(err.data.kind).toBe("timeout");
    expect(err.message).toContain("timed out after 100 ms");
  });

  test("a body that stalls halfway times out too", async () => {
    const fake = serve(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("partial"));
            },
          }),
        ),
    );
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    const err = await failure(door.net("http://www.example.com/stall", { timeoutMs: 150 }));
    expect(err.data.kind).toBe("timeout");
  });

  test("the caller's abort comes back as the caller's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("user cancelled");
    const fake = serve(() => {
      controller.abort(reason);
      return new Promise<Response>(() => {});
    });
    const door = createLoopbackDoor({ names, routes: { [A]: fake.origin } });
    const outcome = await door.net("http://www.example.com/", { signal: controller.signal }).catch((e: unknown) => e);
    expect(outcome).toBe(reason);
  });
});
