import { describe, expect, test } from "bun:test";
import { callHttpTool } from "../../../src/plugins/http-rail/call-tool.ts";
import type { ManifestTool } from "../../../src/plugins/manifest/schema.ts";
import { fakeGitHub } from "../../fake/plugin-apis/github.ts";
import { useFakeServers } from "../../net/loopback-door.ts";
import { catalogTool, door, GITHUB_IP, pluginOf } from "./_setup.ts";

const TOKEN = "gho_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const FRESH = "gho_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
const serve = useFakeServers();
const plugin = pluginOf("github");

function setup(tokens = [TOKEN], orgs = 0) {
  const github = fakeGitHub({ tokens, orgs });
  const { origin } = serve(github.handler);
  return { github, net: door({ [GITHUB_IP]: origin }).net };
}

// GitHub's /organizations pages by `since` (the last id seen) — the id_window shape; no catalog tool uses it yet.
const listOrgs = {
  name: "github_list_orgs",
  description: "List organizations.",
  read_only: true,
  rail: "http",
  parameters: { type: "object", properties: { per_page: { type: "integer", default: 2 } } },
  request: {
    method: "GET",
    url: "https://api.github.com/organizations",
    query: { per_page: "{per_page}" },
    success: [200],
    extract: { fields: ["login", "id"] },
    paginate: { mode: "id_window", cursor_param: "since", cursor_in: "query", id_field: "id", max_pages: 10 },
  },
} as ManifestTool;

describe("github reads", () => {
  test("lists repositories with the token, GitHub's headers and extract.fields", async () => {
    const { github, net } = setup();
    const tool = catalogTool("github", "github_list_repos");
    const result = await callHttpTool({ plugin, tool, args: { visibility: "private" }, credential: TOKEN, net });
    expect(JSON.parse(result.content)).toEqual([
      {
        full_name: "ada/alpha",
        private: false,
        description: null,
        html_url: "https://github.com/ada/alpha",
        default_branch: "main",
        updated_at: "2024-01-01T00:00:00Z",
      },
      {
        full_name: "ada/beta",
        private: true,
        description: null,
        html_url: "https://github.com/ada/beta",
        default_branch: "main",
        updated_at: "2024-01-01T00:00:00Z",
      },
    ]);
    const [req] = github.seen;
    expect(req!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
    expect(req!.headers.get("accept")).toBe("application/vnd.github+json");
    expect(req!.headers.get("x-github-api-version")).toBe("2022-11-28");
    expect(req!.query.toString()).toBe("sort=updated&visibility=private&per_page=30");
  });

  test("id_window pagination sends the last id as `since` until an empty page", async () => {
    const { github, net } = setup([TOKEN], 5);
    const result = await callHttpTool({ plugin, tool: listOrgs, args: {}, credential: TOKEN, net });
    const out = JSON.parse(result.content);
    expect(out).toEqual({
      items: [1, 2, 3, 4, 5].map((i) => ({ login: `org-${i}`, id: i * 10 })),
      truncated: false,
    });
    expect(github.seen.map((r) => r.query.get("since"))).toEqual([null, "20", "40", "50"]);
  });

  test("id_window stops at max_pages with truncated: true", async () => {
    const { github, net } = setup([TOKEN], 9);
    const tool = {
      ...listOrgs,
      request: { ...listOrgs.request!, paginate: { ...listOrgs.request!.paginate!, max_pages: 2 } },
    };
    const out = JSON.parse((await callHttpTool({ plugin, tool, args: {}, credential: TOKEN, net })).content);
    expect(out.items).toHaveLength(4);
    expect(out.truncated).toBe(true);
    expect(github.seen).toHaveLength(2);
  });
});

describe("github writes", () => {
  test("creates an issue: POST with a JSON body, 201 is the manifest's success", async () => {
    const { github, net } = setup();
    const tool = catalogTool("github", "github_create_issue");
    const args = { owner: "ada", repo: "engine", title: "Carry bug", labels: ["bug"], milestone: 3 };
    const result = await callHttpTool({ plugin, tool, args, credential: TOKEN, net });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(result.content)).toMatchObject({ number: 1, title: "Carry bug", labels: [{ name: "bug" }] });
    const [req] = github.seen;
    expect(req!.method).toBe("POST");
    expect(req!.path).toBe("/repos/ada/engine/issues");
    expect(req!.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(req!.body)).toEqual({ title: "Carry bug", labels: ["bug"] }); // milestone was undeclared
  });

  test("a 401 on a write surfaces the reauthorize error at once: one request, no refresh", async () => {
    const { github, net } = setup([FRESH]);
    let refreshes = 0;
    const refresh = async () => {
      refreshes++;
      return FRESH;
    };
    const tool = catalogTool("github", "github_create_issue");
    const args = { owner: "ada", repo: "engine", title: "t" };
    const result = await callHttpTool({ plugin, tool, args, credential: TOKEN, net, refresh });
    expect(result).toEqual({
      content: "github needs reconnection. Run fermix plugins auth reauthorize github.",
      isError: true,
    });
    expect(github.seen).toHaveLength(1);
    expect(refreshes).toBe(0);
    expect(github.state.created).toHaveLength(0);
  });
});

describe("github credentials", () => {
  test("a read-only tool recovers from a 401 after one refresh", async () => {
    const { github, net } = setup([FRESH]);
    let refreshes = 0;
    const refresh = async () => {
      refreshes++;
      return FRESH;
    };
    const tool = catalogTool("github", "github_list_repos");
    const result = await callHttpTool({ plugin, tool, args: {}, credential: TOKEN, net, refresh });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(result.content)).toHaveLength(2);
    expect(refreshes).toBe(1);
    expect(github.seen.map((r) => r.headers.get("authorization"))).toEqual([`Bearer ${TOKEN}`, `Bearer ${FRESH}`]);
  });

  test("refresh is tried once only; a second 401 asks for reauthorization", async () => {
    const { github, net } = setup(["gho_nobody_has_this_token_000000000000"]);
    let refreshes = 0;
    const refresh = async () => {
      refreshes++;
      return FRESH;
    };
    const tool = catalogTool("github", "github_list_repos");
    const result = await callHttpTool({ plugin, tool, args: {}, credential: TOKEN, net, refresh });
    expect(result).toEqual({
      content: "github needs reconnection. Run fermix plugins auth reauthorize github.",
      isError: true,
    });
    expect(refreshes).toBe(1);
    expect(github.seen).toHaveLength(2);
  });

  test("a refresh that fails ends in the reauthorize error without a retry", async () => {
    const { github, net } = setup([FRESH]);
    const tool = catalogTool("github", "github_list_repos");
    const refresh = async () => {
      throw new Error("invalid_grant");
    };
    const result = await callHttpTool({ plugin, tool, args: {}, credential: TOKEN, net, refresh });
    expect(result.content).toBe("github needs reconnection. Run fermix plugins auth reauthorize github.");
    expect(github.seen).toHaveLength(1);
  });

  test("never connected: the login sentence, and nothing is sent", async () => {
    const { github, net } = setup();
    const result = await callHttpTool({ plugin, tool: catalogTool("github", "github_list_repos"), args: {}, net });
    expect(result).toEqual({
      content: "github is enabled but not connected. Run fermix plugins auth login github.",
      isError: true,
    });
    expect(github.seen).toHaveLength(0);
  });
});

describe("github errors, word for word", () => {
  test("403 names the tool's required scopes", async () => {
    const { github, net } = setup();
    github.state.mode = "forbidden";
    const tool = catalogTool("github", "github_create_issue");
    const result = await callHttpTool({
      plugin,
      tool,
      args: { owner: "o", repo: "r", title: "t" },
      credential: TOKEN,
      net,
    });
    expect(result).toEqual({
      content:
        "github_create_issue was refused (HTTP 403): the connected account lacks permission; it needs repo; " +
        "if it was not granted, run fermix plugins auth reauthorize github. Response: " +
        '{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}',
      isError: true,
    });
  });

  test("403 with an exhausted rate limit is reported as rate limiting", async () => {
    const { github, net } = setup();
    github.state.mode = "rate_limited";
    const result = await callHttpTool({
      plugin,
      tool: catalogTool("github", "github_list_repos"),
      args: {},
      credential: TOKEN,
      net,
    });
    expect(result).toEqual({
      content: "github is rate limited (HTTP 403); retry after 2023-11-14T22:13:20.000Z.",
      isError: true,
    });
  });

  test("429 includes Retry-After", async () => {
    const { github, net } = setup();
    github.state.mode = "secondary_limit";
    const result = await callHttpTool({
      plugin,
      tool: catalogTool("github", "github_list_repos"),
      args: {},
      credential: TOKEN,
      net,
    });
    expect(result).toEqual({
      content: "github is rate limiting requests (HTTP 429); retry after 60 seconds (Retry-After: 60).",
      isError: true,
    });
  });

  test("other statuses carry the body, with the credential redacted", async () => {
    const { net } = setup();
    const tool = catalogTool("github", "github_get_issue");
    const result = await callHttpTool({
      plugin,
      tool,
      args: { owner: "o", repo: "r", issue_number: 404 },
      credential: TOKEN,
      net,
    });
    expect(result).toEqual({
      content:
        'github_get_issue failed with HTTP 404: {"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}',
      isError: true,
    });
  });

  test("a redirect is never followed; the error names Location", async () => {
    const { github, net } = setup();
    github.state.mode = "redirect";
    const result = await callHttpTool({
      plugin,
      tool: catalogTool("github", "github_list_repos"),
      args: {},
      credential: TOKEN,
      net,
    });
    expect(result).toEqual({
      content:
        "github_list_repos was redirected (HTTP 301) to https://169.254.169.254/latest/meta-data; plugin requests never follow redirects.",
      isError: true,
    });
    expect(github.seen).toHaveLength(1);
  });

  test("a non-JSON success is refused", async () => {
    const { github, net } = setup();
    github.state.mode = "html";
    const result = await callHttpTool({
      plugin,
      tool: catalogTool("github", "github_list_repos"),
      args: {},
      credential: TOKEN,
      net,
    });
    expect(result).toEqual({
      content: "github_list_repos failed: expected a JSON response but got text/html (HTTP 200).",
      isError: true,
    });
  });
});
