import { expect, test } from "bun:test";
import { createUrlGuard } from "../../src/browser/url-guard.ts";
import { domainMatches, pageRefusal } from "../../src/computer-use/page-target.ts";

test("a domain allows itself and its subdomains, never a look-alike", () => {
  expect(domainMatches("example.org", "example.org")).toBe(true);
  expect(domainMatches("www.Example.org.", "example.org")).toBe(true);
  expect(domainMatches("notexample.org", "example.org")).toBe(false);
  expect(domainMatches("example.org.evil.com", "example.org")).toBe(false);
  expect(domainMatches("a.example.org", "*.example.org")).toBe(true);
  expect(domainMatches("a.example.org", "https://example.org/path")).toBe(true);
  expect(domainMatches("example.org", "")).toBe(false);
});

test("the address floor always, allowed_domains when the posture honours the lists", async () => {
  const guard = createUrlGuard({ allowLoopback: false, resolve: async () => ["93.184.215.14"] });
  const page = (url: string) => ({ wmClass: ["browser"], title: "", url });
  const rules = { allowedDomains: ["example.org"], guard, honourLists: true };
  expect(await pageRefusal(page("https://docs.example.org/"), rules)).toBeUndefined();
  expect(await pageRefusal(page("https://example.com/"), rules)).toContain("the page's domain example.com");
  expect(await pageRefusal(page("about:blank"), rules)).toStartWith("the page about:blank is not in allowed_domains");
  expect(await pageRefusal(page("https://example.com/"), { ...rules, honourLists: false })).toBeUndefined();
  expect(await pageRefusal(page("http://127.0.0.1:8080/"), { ...rules, honourLists: false })).toContain(
    "allow_loopback = true",
  );
  expect(await pageRefusal(page("http://169.254.169.254/"), { ...rules, honourLists: false })).toContain(
    "input into this page is refused",
  );
});
