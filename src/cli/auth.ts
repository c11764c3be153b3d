import type { AuthCommandDeps } from "../auth/commands.ts";
import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { readSecretInput } from "../plugins/settings/read-secret-input.ts";
import { spawn, which } from "../runtime/processes.ts";
import type { ParsedArgs } from "./args.ts";
import { defineCommand } from "./command.ts";
import { ifDaemonRuns } from "./daemon-client.ts";
import { EXIT, UsageError } from "./exit.ts";
import { jsonEnvelope } from "./json-envelope.ts";
import { writeErr, writeOut } from "./output.ts";

const PROVIDER = {
  type: "string",
  valueHint: "codex|anthropic|xai",
  description: "which sign-in (login and logout: codex when not given)",
} as const;

/** `fermix auth`: chat providers used with a ChatGPT, Claude or Grok plan instead of an API key. */
export default defineCommand({
  meta: {
    name: "auth",
    description: "Sign in to ChatGPT (Codex), Claude or Grok with your plan instead of an API key",
    details:
      'Tokens are kept in auth.json (0600) in FERMIX_HOME and refresh themselves. Claude and Grok use them once [fermix_core.providers.<p>] auth_mode = "oauth", which login sets and logout reverts. A sign-in never changes the primary provider.',
  },
  subCommands: {
    login: defineCommand({
      meta: {
        name: "login",
        description: "Sign in (codex and xai: in a browser; anthropic: a setup token or Claude Code's login)",
        examples: [
          "fermix auth login",
          "fermix auth login --provider xai --no-browser",
          "claude setup-token | fermix auth login --provider anthropic --setup-token",
          "fermix auth login --provider anthropic --import-claude-code",
        ],
        // The word after --setup-token is the token; run never repeats a word back.
        takesWords: true,
      },
      args: {
        provider: PROVIDER,
        browser: { type: "boolean", description: "open the sign-in page in a browser (--no-browser: print its URL)" },
        port: { type: "string", valueHint: "N", description: "the loopback port for the redirect" },
        timeout: { type: "string", valueHint: "SECONDS", description: "how long to wait for the sign-in (300)" },
        "setup-token": {
          type: "boolean",
          description: "anthropic: a token from `claude setup-token`, read from stdin or a hidden prompt",
        },
        "import-claude-code": {
          type: "boolean",
          description: "anthropic: copy Claude Code's login from ~/.claude/.credentials.json",
        },
      },
      async run({ args }) {
        const { authLogin } = await import("../auth/commands.ts");
        const words = args._;
        if (words.length > (args["setup-token"] ? 1 : 0)) {
          // Not repeated: a stray word may well be a token.
          throw UsageError(
            "auth login: unexpected argument (a setup token goes right after --setup-token, or on stdin)",
          );
        }
        const lines = await authLogin(
          {
            provider: args.provider,
            browser: args.browser !== false,
            port: integer(args, "port", 1, 65535),
            timeoutSeconds: integer(args, "timeout", 1, 86_400),
            setupToken: args["setup-token"] === true,
            setupTokenValue: words[0],
            importClaudeCode: args["import-claude-code"] === true,
          },
          deps(),
        );
        await writeOut(`${lines.join("\n")}\n`);
        return EXIT.ok;
      },
    }),
    status: defineCommand({
      meta: { name: "status", description: "Say for each sign-in whether it is logged in and when its token expires" },
      args: {
        provider: { ...PROVIDER, description: "only this one" },
        json: { type: "boolean", description: "print JSON" },
      },
      async run({ args }) {
        const { authStatus, statusLines } = await import("../auth/commands.ts");
        const answer = authStatus(args.provider, deps());
        await writeOut(
          args.json
            ? `${jsonEnvelope({ ok: true, result: answer })}\n`
            : `${statusLines(answer, Date.now()).join("\n")}\n`,
        );
        return EXIT.ok;
      },
    }),
    logout: defineCommand({
      meta: { name: "logout", description: "Forget a sign-in's tokens (and use the API key again)" },
      args: { provider: PROVIDER },
      async run({ args }) {
        const { authLogout } = await import("../auth/commands.ts");
        await writeOut(`${(await authLogout(args.provider, deps())).join("\n")}\n`);
        return EXIT.ok;
      },
    }),
  },
});

function deps(): AuthCommandDeps {
  const env = processEnv();
  const paths = fermixPaths(resolveHome(env));
  return {
    env,
    paths,
    daemonRuns: async () => (await ifDaemonRuns((client) => client.health())) !== undefined,
    forget: async (profile) => {
      try {
        await ifDaemonRuns((client) => client.forgetAuth(profile));
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new FermixError(
          "auth_forget_failed",
          `the tokens are removed from auth.json, but the running daemon did not confirm it dropped them (${why}); restart it: fermix restart`,
        );
      }
    },
    note: (line) => void writeErr(`${line}\n`),
    openBrowser,
    readSetupToken: async () => {
      try {
        return await readSecretInput({ name: "anthropic", prompt: "Claude setup token (from `claude setup-token`)" });
      } catch (err) {
        if (!(err instanceof FermixError) || err.code !== "usage") throw err;
        throw UsageError(
          "no setup token was given; pipe it in: claude setup-token | fermix auth login --provider anthropic --setup-token",
        );
      }
    },
  };
}

function integer(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const raw = args[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw UsageError(`auth login: --${name} takes a whole number from ${min} to ${max} (got "${String(raw)}")`);
  }
  return n;
}

/** The system's browser launcher; a failure only means the person opens the printed URL themselves. */
function openBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : "xdg-open";
  if (!which(command)) return;
  try {
    spawn([command, url]).unref();
  } catch {}
}
