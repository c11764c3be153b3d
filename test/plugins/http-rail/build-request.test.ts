import { describe, expect, test } from "bun:test";
import { buildRequest } from "../../../src/plugins/http-rail/build-request.ts";
import type { ManifestTool } from "../../../src/plugins/manifest/schema.ts";
import { catalogTool } from "./_setup.ts";

function tool(request: ManifestTool["request"], properties: Record<string, unknown> = {}, required?: string[]) {
  return {
    name: "demo_call",
    description: "d",
    read_only: true,
    rail: "http",
    parameters: { type: "object", properties, required },
    request,
  } as ManifestTool;
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("URL path", () => {
  test("fills and encodes path placeholders from the GitHub template", () => {
    const built = buildRequest(catalogTool("github", "github_get_issue"), {
      owner: "ada lovelace",
      repo: "a/b?c#d",
      issue_number: 7,
    });
    expect(built.method).toBe("GET");
    expect(built.url).toBe("https://api.github.com/repos/ada%20lovelace/a%2Fb%3Fc%23d/issues/7");
    expect(built.headers).toEqual({ Accept: "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28" });
    expect(built.body).toBeUndefined();
  });

  test("an argument aimed at another host stays a path segment on the template's host", () => {
    const built = buildRequest(catalogTool("github", "github_get_issue"), {
      owner: "@169.254.169.254",
      repo: "//127.0.0.1:80/x",
      issue_number: 1,
    });
    const url = new URL(built.url);
    expect(url.host).toBe("api.github.com");
    expect(url.pathname).toBe("/repos/%40169.254.169.254/%2F%2F127.0.0.1%3A80%2Fx/issues/1");
  });

  test("dot segments are refused: they would move the request to another endpoint", () => {
    const get = catalogTool("github", "github_get_issue");
    expect(refusal(() => buildRequest(get, { owner: "..", repo: "r", issue_number: 1 }))).toBe(
      'github_get_issue: argument "owner" must not be ".."',
    );
  });

  test("a placeholder in the host is impossible, even if a manifest skipped the install checks", () => {
    const t = tool(
      { url: "https://{tenant}.example.com/api", method: "GET", success: [200] },
      { tenant: { type: "string" } },
    );
    expect(refusal(() => buildRequest(t, { tenant: "169.254.169.254#" }))).toBe(
      "demo_call: the request URL must have a fixed host; placeholders may only fill the path and query",
    );
    const port = tool({ url: "https://example.com:{p}/", method: "GET", success: [200] }, { p: { type: "integer" } });
    expect(refusal(() => buildRequest(port, { p: 8080 }))).toContain("must have a fixed host");
  });

  test("a URL that parses to another origin than it reads is refused", () => {
    // Read by hand, the host is evil.example; a URL parser treats "\" as "/" and lands on api.example.com.
    const t = tool({ url: "https://api.example.com\\@evil.example/x", method: "GET", success: [200] });
    expect(refusal(() => buildRequest(t, {}))).toContain("must not carry user:password@");
    const sneaky = tool({ url: "https://api.example.com\\.evil.example/x", method: "GET", success: [200] });
    expect(refusal(() => buildRequest(sneaky, {}))).toContain("leaves the template's origin");
  });

  test("http templates are refused at call time too", () => {
    const t = tool({ url: "http://api.example.com/x", method: "GET", success: [200] });
    expect(refusal(() => buildRequest(t, {}))).toBe(
      "demo_call: the request URL must be https (http://api.example.com/x)",
    );
  });
});

describe("query", () => {
  test("defaults fill, absent optional values are dropped, static values stay", () => {
    const built = buildRequest(catalogTool("github", "github_list_pull_requests"), { owner: "o", repo: "r" });
    expect(built.url).toBe("https://api.github.com/repos/o/r/pulls?state=open&per_page=30");
  });

  test("booleans and numbers become text; a list repeats the key", () => {
    const built = buildRequest(catalogTool("slack", "slack_list_channels"), { exclude_archived: false });
    expect(built.url).toBe(
      "https://slack.com/api/conversations.list?types=public_channel%2Cprivate_channel&exclude_archived=false&limit=200",
    );
    const t = tool(
      {
        url: "https://api.example.com/x",
        method: "GET",
        success: [200],
        query: { id: "{ids}", q: "in:{box} is:unread" },
      },
      { ids: { type: "array" }, box: { type: "string" } },
    );
    expect(buildRequest(t, { ids: ["a", "b"], box: "inbox" }).url).toBe(
      "https://api.example.com/x?id=a&id=b&q=in%3Ainbox+is%3Aunread",
    );
  });
});

describe("body", () => {
  test("whole-leaf placeholders keep their JSON type; absent optional leaves are dropped", () => {
    const built = buildRequest(catalogTool("github", "github_create_issue"), {
      owner: "o",
      repo: "r",
      title: "Broken",
      labels: ["bug", "p1"],
    });
    expect(built.method).toBe("POST");
    expect(JSON.parse(built.body!)).toEqual({ title: "Broken", labels: ["bug", "p1"] });
    expect(built.headers["Content-Type"]).toBe("application/json");
  });

  test("objects emptied by dropped leaves are dropped; numbers stay numbers", () => {
    const t = tool(
      {
        url: "https://api.example.com/x",
        method: "POST",
        success: [200],
        body: { n: "{n}", nested: { a: "{a}" }, list: ["{a}", "{n}"], text: "n={n}", fixed: {} },
      },
      { n: { type: "integer" }, a: { type: "string" } },
    );
    expect(JSON.parse(buildRequest(t, { n: 3 }).body!)).toEqual({ n: 3, list: [3], text: "n=3", fixed: {} });
  });

  test("an emptied top-level body is still sent as {}", () => {
    const built = buildRequest(catalogTool("gmail", "gmail_modify_labels"), { id: "m1" });
    expect(built.body).toBe("{}");
  });
});

describe("arguments", () => {
  test("undeclared arguments are dropped and never reach the request", () => {
    const built = buildRequest(catalogTool("github", "github_create_issue"), {
      owner: "o",
      repo: "r",
      title: "t",
      assignees: ["mallory"],
      url: "https://169.254.169.254/",
    });
    expect(JSON.parse(built.body!)).toEqual({ title: "t" });
    expect(built.url).toBe("https://api.github.com/repos/o/r/issues");
  });

  test("missing required arguments are all named at once", () => {
    expect(refusal(() => buildRequest(catalogTool("github", "github_create_issue"), { owner: "o" }))).toBe(
      'github_create_issue: missing required argument "repo"; missing required argument "title"',
    );
  });

  test("type and enum are checked at the top level", () => {
    const get = catalogTool("github", "github_get_issue");
    expect(refusal(() => buildRequest(get, { owner: "o", repo: "r", issue_number: "7" }))).toBe(
      'github_get_issue: argument "issue_number" must be integer (got string "7")',
    );
    const list = catalogTool("github", "github_list_repos");
    expect(refusal(() => buildRequest(list, { visibility: "secret" }))).toBe(
      'github_list_repos: argument "visibility" must be one of "all", "public", "private" (got string "secret")',
    );
  });

  test("the schema's bounds are checked too, with a sentence the model can act on", () => {
    const list = catalogTool("github", "github_list_repos");
    expect(refusal(() => buildRequest(list, { per_page: 500 }))).toBe(
      'github_list_repos: argument "per_page" must be at most 100 (got number 500)',
    );
    expect(refusal(() => buildRequest(list, { per_page: 0 }))).toBe(
      'github_list_repos: argument "per_page" must be at least 1 (got number 0)',
    );
    // X's search wants 10 to 100 results; 5 would be a 400 from the API.
    const search = catalogTool("x", "x_search_recent");
    expect(refusal(() => buildRequest(search, { query: "fermix", max_results: 5 }))).toBe(
      'x_search_recent: argument "max_results" must be at least 10 (got number 5)',
    );
  });

  test("null for an optional argument means not given", () => {
    const built = buildRequest(catalogTool("github", "github_list_pull_requests"), {
      owner: "o",
      repo: "r",
      base: null,
      state: null,
    });
    expect(built.url).toBe("https://api.github.com/repos/o/r/pulls?state=open&per_page=30");
  });
});
