import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../../src/config/load.ts";
import { resolveSecret } from "../../../src/config/secrets.ts";
import {
  type AuthCliDeps,
  type AuthManifest,
  authLogin,
  authLogout,
  authReauthorize,
  authRefresh,
  OAuthClientMissing,
} from "../../../src/plugins/oauth/cli.ts";
import { createTokenStore } from "../../../src/plugins/oauth/token-store.ts";
import { startFakeOAuthProvider } from "../../fake/oauth-provider.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";
import { tempHome } from "../../fixture/home.ts";

const defer = cleanupAfterEach();

const MANIFESTS: Record<string, AuthManifest> = {
  github: { auth: { type: "oauth2", provider: "github", scopes: ["repo", "read:user"] } },
  slack: { auth: { type: "api_key" } },
};

function setup(toml?: string) {
  const home = tempHome();
  defer(() => home[Symbol.asyncDispose]());
  const fake = startFakeOAuthProvider({ expiresIn: 3600 });
  defer(() => fake.close());
  const configFile = home.writeConfig(
    toml ??
      `[fermix_core.oauth.github]\nclient_id = "${fake.clientId}"\nclient_secret = "$GH_CLIENT_SECRET"\n\n[fermix_core.plugins]\nenabled = ["slack"]\n`,
  );
  const printed: string[] = [];
  const opened: string[] = [];
  const deps: AuthCliDeps = {
    configFile,
    config: parseConfig(readFileSync(configFile, "utf8"), configFile),
    store: createTokenStore(join(home.home, "auth.json")),
    manifestFor: (name) => MANIFESTS[name],
    resolveSecret: (ref, slot) =>
      resolveSecret(ref, slot, {
        env: { GH_CLIENT_SECRET: fake.clientSecret },
        secretsDir: join(home.home, "secrets"),
      }),
    printUrl: (url) => printed.push(url),
    openBrowser: async (url) => {
      opened.push(url);
      await fake.approve(url);
    },
    endpoints: (provider) => (provider === "github" ? fake.endpoints : undefined),
  };
  const output = (r: { text: string; json: unknown; notes?: string[] }) => [
    r.text,
    JSON.stringify(r.json),
    ...(r.notes ?? []),
  ];
  const noSecrets = (texts: string[]) => {
    for (const t of [...texts, ...printed, readFileSync(configFile, "utf8")])
      for (const s of [...fake.issued, fake.clientSecret]) expect(t).not.toContain(s);
  };
  return { home, fake, deps, printed, opened, output, noSecrets };
}

describe("plugins auth CLI", () => {
  test("login connects, enables the plugin, and prints no token", async () => {
    const { home, deps, printed, opened, output, noSecrets } = setup();
    const result = await authLogin("github", {}, deps);
    expect(result.text).toBe("github\toauth2\tconnected\n");
    expect(result.json).toEqual({
      plugin: "github",
      auth: "oauth2",
      provider: "github",
      state: "connected",
      account: null,
      scopes: ["repo", "read:user"],
      enabled: true,
    });
    expect(result.notes).toEqual(["enabled github"]);
    expect(opened).toEqual(printed);
    const config = parseConfig(readFileSync(deps.configFile, "utf8"), deps.configFile);
    expect(config.fermix_core?.plugins?.enabled).toEqual(["slack", "github"]);
    expect(statSync(join(home.home, "auth.json")).mode & 0o777).toBe(0o600);
    expect(deps.store.state("github")).toBe("valid");
    noSecrets(output(result));
  });

  test("--no-browser never calls the opener", async () => {
    const { fake, deps, opened } = setup();
    const result = await authLogin(
      "github",
      { noBrowser: true },
      { ...deps, printUrl: (url) => void fake.approve(url) },
    );
    expect(result.json).toMatchObject({ state: "connected" });
    expect(opened).toEqual([]);
  });

  test("--port pins the loopback port and --timeout bounds the wait", async () => {
    const { deps, printed } = setup();
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = probe.port;
    probe.stop(true);
    await expect(authLogin("github", { noBrowser: true, port, timeoutSeconds: 0.05 }, deps)).rejects.toThrow(
      "no redirect from github arrived within 1s",
    );
    expect(new URL(printed[0]!).searchParams.get("redirect_uri")).toBe(`http://127.0.0.1:${port}/callback`);
    await expect(authLogin("github", { port: 70000 }, deps)).rejects.toThrow(/--port must be a port number/);
  });

  test("a missing OAuth client names the config table to fill in", async () => {
    const { deps } = setup("");
    const error = await authLogin("github", {}, deps).catch((e) => e);
    expect(error).toMatchObject({ code: OAuthClientMissing.code });
    expect(error.message).toBe(
      "github needs an OAuth client: set client_id and client_secret under [fermix_core.oauth.github] in config.toml",
    );
  });

  test("non-OAuth and unknown plugins are refused with the right pointer", async () => {
    const { deps } = setup();
    await expect(authLogin("slack", {}, deps)).rejects.toThrow("fermix plugins auth set slack");
    await expect(authLogin("nope", {}, deps)).rejects.toMatchObject({ code: "unknown_plugin" });
  });

  test("refresh, reauthorize after invalidation, and logout", async () => {
    const { fake, deps, output, noSecrets } = setup();
    await authLogin("github", {}, deps);
    const refreshed = await authRefresh("github", deps);
    expect(refreshed.text).toMatch(/^github\toauth2\tconnected\t\t\d{4}-\d\d-\d\dT/);
    fake.revokeAll();
    await expect(authRefresh("github", deps)).rejects.toThrow("Run fermix plugins auth reauthorize github.");
    expect(deps.store.state("github")).toBe("invalidated");
    const again = await authReauthorize("github", {}, deps);
    expect(again.notes).toEqual([]); // already enabled
    expect(deps.store.state("github")).toBe("valid");
    const out = await authLogout("github", deps);
    expect(out.json).toEqual({ plugin: "github", auth: "oauth2", state: "not_connected", changed: true });
    expect(deps.store.get("github")).toBeUndefined();
    expect((await authLogout("github", deps)).notes).toEqual(["github was not connected"]);
    noSecrets([...output(refreshed), ...output(again), ...output(out)]);
  });
});
