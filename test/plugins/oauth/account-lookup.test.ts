import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../../src/config/load.ts";
import type { Manifest } from "../../../src/plugins/manifest/schema.ts";
import { accountLookup, lookupAccount } from "../../../src/plugins/oauth/account-lookup.ts";
import { type AuthCliDeps, authLogin } from "../../../src/plugins/oauth/cli.ts";
import { createTokenStore } from "../../../src/plugins/oauth/token-store.ts";
import { startFakeOAuthProvider } from "../../fake/oauth-provider.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";
import { createLoopbackDoor, useFakeServers } from "../../net/loopback-door.ts";

/*
 * Who signed in, for providers whose token response does not say (GitHub): the plugin's own health check
 * (`GET https://api.github.com/user` → `login`), through the real guarded door with api.github.com resolved to a
 * test address whose socket lands on a fake of that endpoint. Best effort: a refusal or an odd answer is no name.
 */

const defer = cleanupAfterEach();
const serve = useFakeServers();
const GITHUB_ADDRESS = "140.82.112.6";
const github = JSON.parse(
  readFileSync(join(import.meta.dir, "../../../catalog/plugins/github/plugin.json"), "utf8"),
) as Manifest;

/** GitHub's GET /user: the token as `Authorization: Bearer`, 401 `{"message": "Bad credentials", …}` otherwise. */
function fakeGitHubUser(token: string, answer?: () => Response) {
  const seen: Request[] = [];
  const fake = serve((request) => {
    seen.push(request);
    if (new URL(request.url).pathname !== "/user") return Response.json({ message: "Not Found" }, { status: 404 });
    if (request.headers.get("authorization") !== `Bearer ${token}`) {
      return Response.json(
        { message: "Bad credentials", documentation_url: "https://docs.github.com/rest", status: "401" },
        { status: 401 },
      );
    }
    return answer ? answer() : Response.json({ login: "octocat", id: 583231, name: "The Octocat", type: "User" });
  });
  const door = createLoopbackDoor({
    names: { "api.github.com": [GITHUB_ADDRESS] },
    routes: { [GITHUB_ADDRESS]: fake.origin },
  });
  return { seen, net: door.net };
}

describe("the connected account from the health check", () => {
  test("GitHub: GET /user with the token and the manifest's headers; login is the account", async () => {
    const api = fakeGitHubUser("gho_token123");
    expect(await lookupAccount({ manifest: github, accessToken: "gho_token123", net: api.net })).toBe("octocat");
    const seen = api.seen[0]!;
    expect(seen.method).toBe("GET");
    expect(seen.headers.get("host")).toBe("api.github.com");
    expect(seen.headers.get("x-github-api-version")).toBe("2022-11-28");
    expect(seen.headers.get("authorization")).toBe("Bearer gho_token123");
  });

  test("a refused token, an odd answer or no account_path: no name, no error", async () => {
    expect(await lookupAccount({ manifest: github, accessToken: "wrong", net: fakeGitHubUser("right").net })).toBe(
      undefined,
    );
    const odd = fakeGitHubUser("t", () => new Response("<html>maintenance</html>", { status: 200 }));
    expect(await lookupAccount({ manifest: github, accessToken: "t", net: odd.net })).toBeUndefined();
    const noLogin = fakeGitHubUser("t", () => Response.json({ id: 1 }));
    expect(await lookupAccount({ manifest: github, accessToken: "t", net: noLogin.net })).toBeUndefined();
    const silent = fakeGitHubUser("t");
    const noPath = { ...github, health_check: { ...github.health_check!, account_path: undefined } } as Manifest;
    expect(await lookupAccount({ manifest: noPath, accessToken: "t", net: silent.net })).toBeUndefined();
    expect(silent.seen).toHaveLength(0);
  });

  test("plugins auth login github files the looked-up account with the token; a faked provider skips the lookup", async () => {
    const home = tempHome();
    defer(() => home[Symbol.asyncDispose]());
    const fake = startFakeOAuthProvider({ scopeSeparator: "," }); // GitHub: no expiry, no account in the answer
    defer(() => fake.close());
    const configFile = home.writeConfig(
      `[fermix_core.oauth.github]\nclient_id = "${fake.clientId}"\nclient_secret = "${fake.clientSecret}"\n`,
    );
    const store = createTokenStore(join(home.home, "auth.json"));
    const tokens: string[] = [];
    const api = fakeGitHubUser("unused");
    const net: typeof api.net = async (url, init) => {
      tokens.push(String(init?.headers?.authorization));
      return api.net(url, { ...init, headers: { ...init?.headers, authorization: "Bearer unused" } });
    };
    const deps: AuthCliDeps = {
      configFile,
      config: parseConfig(readFileSync(configFile, "utf8"), configFile),
      store,
      manifestFor: (n) => (n === "github" ? github : undefined),
      resolveSecret: (ref) => String(ref),
      printUrl: () => {},
      openBrowser: async (url) => void (await fake.approve(url)),
      endpoints: () => fake.endpoints,
      accountOf: accountLookup(
        (n) => (n === "github" ? github : undefined),
        async () => net,
        {},
      ),
    };
    const result = await authLogin("github", {}, deps);
    expect(result.text).toBe("github\toauth2\tconnected\toctocat\n");
    expect(result.json).toMatchObject({ account: "octocat" });
    expect(store.get("github")?.account).toBe("octocat");
    expect(tokens).toEqual([`Bearer ${fake.issued[0]}`]);

    // With FERMIX_TEST_OAUTH_GITHUB set (a test's fake provider) the real API is never asked.
    const skipped = accountLookup(
      () => github,
      async () => {
        throw new Error("must not be built");
      },
      { FERMIX_TEST_OAUTH_GITHUB: "http://127.0.0.1:9" },
    );
    expect(await skipped("github", "t")).toBeUndefined();
  });
});
