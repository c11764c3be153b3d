import { describe, expect, test } from "bun:test";
import { findBrowser } from "../../src/browser/find-browser.ts";
import { createUrlGuard } from "../../src/browser/url-guard.ts";

// DNS is a table here: nothing leaves the machine.
const dns: Record<string, string[]> = {
  "example.com": ["93.184.215.14"],
  "router.example": ["192.168.1.1"],
  "rebind.example": ["93.184.215.14", "10.0.0.7"],
  "dev.example": ["127.0.0.1"],
};
const resolve = async (host: string) => {
  const found = dns[host];
  if (!found) throw new Error(`no such host ${host}`);
  return found;
};

describe("the browser's address floor", () => {
  const strict = createUrlGuard({ allowLoopback: false, resolve });
  const local = createUrlGuard({ allowLoopback: true, resolve });

  test("public pages pass; blank, data and blob are the page's own", async () => {
    expect(await strict("https://example.com/a")).toEqual({ ok: true });
    expect(await strict("about:blank")).toEqual({ ok: true });
    expect(await strict("data:text/html,hi")).toEqual({ ok: true });
  });

  test("private, link-local and metadata addresses are refused, by literal or by any DNS answer", async () => {
    for (const url of [
      "http://10.1.2.3/",
      "http://169.254.169.254/latest",
      "http://[fd00::1]/",
      "http://router.example/",
    ]) {
      const verdict = await strict(url);
      expect(verdict.ok).toBe(false);
    }
    const rebind = await strict("http://rebind.example/");
    expect(rebind).toEqual({
      ok: false,
      reason: "refused http://rebind.example/: rebind.example resolves to 10.0.0.7, a private address (10.0.0.0/8)",
    });
    // Allowing loopback opens nothing else.
    expect((await local("http://10.1.2.3/")).ok).toBe(false);
    expect((await local("http://router.example/")).ok).toBe(false);
  });

  test("loopback only when the owner allows it, with the key to set said", async () => {
    for (const url of ["http://127.0.0.1:3000/", "http://localhost/", "http://[::1]:8080/", "http://dev.example/"]) {
      expect((await local(url)).ok).toBe(true);
    }
    const refused = await strict("http://localhost:3000/");
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toContain("set [fermix_core.tools.browser] allow_loopback = true");
    expect((await strict("http://dev.example/")).ok).toBe(false);
  });

  test("only http and https", async () => {
    for (const url of ["file:///etc/passwd", "chrome://settings", "ftp://example.com/", "javascript:alert(1)"]) {
      const verdict = await local(url);
      expect(verdict.ok).toBe(false);
    }
    expect(await strict("not a url")).toMatchObject({ ok: false, reason: "refused not a url: not a valid URL" });
  });
});

describe("finding Chromium", () => {
  test("a configured executable must exist; otherwise PATH, then the usual paths; none says how to install", () => {
    expect(findBrowser("/opt/none/chrome", { exists: () => false })).toMatchObject({ ok: false });
    expect(findBrowser("/opt/x/chrome", { exists: (p) => p === "/opt/x/chrome" })).toEqual({
      ok: true,
      executable: "/opt/x/chrome",
    });
    expect(findBrowser(undefined, { PATH: "/nonexistent", exists: (p) => p === "/snap/bin/chromium" })).toEqual({
      ok: true,
      executable: "/snap/bin/chromium",
    });
    const none = findBrowser(undefined, { PATH: "/nonexistent", exists: () => false });
    expect(none.ok).toBe(false);
    expect(!none.ok && none.reason).toContain("sudo apt install chromium");
  });
});
