import type { AuthLoginOptions } from "../plugins/oauth/cli.ts";
import { authClear, authSet, authStatus } from "../plugins/settings/cli.ts";
import { pluginContext, settingsDeps } from "./_plugins.ts";
import { oauthCommand } from "./_plugins-oauth.ts";
import { JSON_ARG, PLUGIN_ARG, runPluginVerb } from "./_plugins-verb.ts";
import type { ParsedArgs } from "./args.ts";
import { defineCommand } from "./command.ts";

const SIGN_IN_ARGS = {
  name: PLUGIN_ARG,
  browser: { type: "boolean", description: "open the sign-in page in a browser (--no-browser: print its URL)" },
  port: { type: "string", valueHint: "N", description: "the loopback port for the redirect" },
  timeout: { type: "string", valueHint: "S", description: "seconds to wait for the sign-in" },
  json: JSON_ARG,
} as const;

/** A plugin's credentials: a secret in the keychain (set, clear, status) or an OAuth sign-in (login, …). */
export default defineCommand({
  meta: { name: "auth", description: "Set, clear or check a plugin's secret, or sign in to it with OAuth" },
  subCommands: {
    set: defineCommand({
      meta: {
        name: "set",
        description: "Store a plugin's secret, read from stdin or a hidden prompt",
        details: "Never from the command line: a secret there lands in shell history and the process list.",
        examples: ['echo "$TOKEN" | fermix plugins auth set slack'],
        // Words after NAME reach run, which refuses them without repeating them: they may be the secret.
        takesWords: true,
      },
      args: {
        name: PLUGIN_ARG,
        stdin: { type: "boolean", description: "read the secret from stdin (what happens anyway)" },
        json: JSON_ARG,
      },
      run: ({ args }) =>
        runPluginVerb(async () => authSet(args.name, await settingsDeps(await pluginContext(), args._.slice(1))), {
          json: args.json,
          changes: true,
        }),
    }),
    clear: defineCommand({
      meta: { name: "clear", description: "Remove a plugin's stored secret" },
      args: { name: PLUGIN_ARG, json: JSON_ARG },
      run: ({ args }) =>
        runPluginVerb(async () => authClear(args.name, await settingsDeps(await pluginContext())), {
          json: args.json,
          changes: true,
        }),
    }),
    status: defineCommand({
      meta: { name: "status", description: "Say whether each plugin (or one) has what it needs to sign in" },
      args: { name: { ...PLUGIN_ARG, required: false }, json: JSON_ARG },
      run: ({ args }) =>
        runPluginVerb(async () => authStatus(args.name, await settingsDeps(await pluginContext())), {
          json: args.json,
          changes: false,
        }),
    }),
    login: defineCommand({
      meta: { name: "login", description: "Sign in to a plugin's service with OAuth in a browser" },
      args: SIGN_IN_ARGS,
      run: ({ args }) => signIn("login", args),
    }),
    reauthorize: defineCommand({
      meta: { name: "reauthorize", description: "Sign in again, replacing the token only when that succeeds" },
      args: SIGN_IN_ARGS,
      run: ({ args }) => signIn("reauthorize", args),
    }),
    refresh: defineCommand({
      meta: { name: "refresh", description: "Refresh a plugin's OAuth token now" },
      args: { name: PLUGIN_ARG, json: JSON_ARG },
      run: ({ args }) => signIn("refresh", args),
    }),
    logout: defineCommand({
      meta: { name: "logout", description: "Forget a plugin's OAuth token" },
      args: { name: PLUGIN_ARG, json: JSON_ARG },
      run: ({ args }) => signIn("logout", args),
    }),
  },
});

function signIn(action: "login" | "reauthorize" | "refresh" | "logout", args: ParsedArgs): Promise<number> {
  const opts: AuthLoginOptions = {
    noBrowser: args.browser === false,
    port: args.port === undefined ? undefined : Number(args.port),
    timeoutSeconds: args.timeout === undefined ? undefined : Number(args.timeout),
  };
  const name = args.name as string;
  return runPluginVerb(async () => oauthCommand(action, name, opts, await pluginContext()), {
    json: args.json === true,
    changes: true,
  });
}
