import { defineError } from "../../error.ts";
import { type HttpServer, serveHttp } from "../../runtime/http.ts";

/**
 * The redirect target of a login (RFC 8252 §7.3): a one-shot HTTP server on 127.0.0.1 — never a wildcard
 * address, so nothing on the network can hand it a code. It settles on the first request to /callback:
 * a wrong `state` refuses the whole login (it is not our browser's redirect), as does an `error=`.
 */
export const OAuthStateMismatch = defineError<{ provider: string }>("oauth_state_mismatch");
export const OAuthDenied = defineError<{ provider: string; error: string }>("oauth_denied");
export const OAuthPortInUse = defineError<{ port: number }>("oauth_port_in_use");

export type RedirectServer = {
  redirectUri: string;
  /** The authorization code, once the browser comes back. */
  code: Promise<string>;
  close(): void;
};

export function startRedirectServer(opts: { provider: string; state: string; port?: number }): RedirectServer {
  let settle!: { resolve: (code: string) => void; reject: (err: Error) => void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // The login may still be opening the browser when the redirect fails; the rejection is read later.
  code.catch(() => {});
  let done = false;

  const handle = (req: Request): Response => {
    const url = new URL(req.url);
    if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
    if (done) return page(410, "This login has already finished. You can close this tab.");
    done = true;
    const q = url.searchParams;
    if (q.get("state") !== opts.state) {
      settle.reject(
        OAuthStateMismatch(`the redirect from ${opts.provider} carried the wrong state; login refused, try again`, {
          provider: opts.provider,
        }),
      );
      return page(400, "Login refused: this redirect does not belong to the login fermix started.");
    }
    const error = q.get("error");
    if (error) {
      const description = q.get("error_description");
      const why = description ? `: ${description.replace(/\s+/g, " ").slice(0, 200)}` : "";
      settle.reject(
        OAuthDenied(`${opts.provider} did not authorize fermix (${error})${why}`, { provider: opts.provider, error }),
      );
      return page(400, "fermix was not authorized. You can close this tab.");
    }
    const value = q.get("code");
    if (!value) {
      settle.reject(
        OAuthDenied(`the redirect from ${opts.provider} had no code`, { provider: opts.provider, error: "no_code" }),
      );
      return page(400, "The redirect had no authorization code. You can close this tab.");
    }
    settle.resolve(value);
    return page(200, "fermix is connected. You can close this tab.");
  };

  let server: HttpServer;
  try {
    server = serveHttp({ hostname: "127.0.0.1", port: opts.port ?? 0 }, handle);
  } catch (err) {
    const port = opts.port ?? 0;
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw OAuthPortInUse(`port ${port} on 127.0.0.1 is in use; pick another with --port`, { port });
    }
    throw err;
  }
  return {
    redirectUri: `http://127.0.0.1:${server.port}/callback`,
    code,
    // Not forced: the page answering the redirect is still being sent when the login moves on.
    close: () => void server.stop(),
  };
}

function page(status: number, text: string): Response {
  return new Response(text, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
