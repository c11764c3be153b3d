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
  /** The login is over (the token stored, or `error`): a `landing` answer waiting on it is sent now. */
  end(error?: unknown): void;
  close(): void;
};

/**
 * How the browser's redirect is answered when not with the plain "close this tab" lines: the web setup page
 * sends the user back to itself. `ended` settles when the login is over — resolved once the token is stored,
 * rejected with why not (a refused redirect is passed rejected at once).
 */
export type Landing = (ended: Promise<void>) => Promise<Response>;

export function startRedirectServer(opts: {
  provider: string;
  state: string;
  port?: number;
  landing?: Landing;
}): RedirectServer {
  let settle!: { resolve: (code: string) => void; reject: (err: Error) => void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // The login may still be opening the browser when the redirect fails; the rejection is read later.
  code.catch(() => {});
  let finish!: { resolve: () => void; reject: (err: unknown) => void };
  const ended = new Promise<void>((resolve, reject) => {
    finish = { resolve, reject };
  });
  ended.catch(() => {});
  let done = false;
  // With a landing, a refusal is answered by it too (the reason as its error); without, by the plain page.
  const refused = (err: Error, text: string): Response | Promise<Response> => {
    settle.reject(err);
    return opts.landing ? opts.landing(Promise.reject(err)) : page(400, text);
  };

  const handle = (req: Request): Response | Promise<Response> => {
    const url = new URL(req.url);
    if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
    if (done) return page(410, "This login has already finished. You can close this tab.");
    done = true;
    const q = url.searchParams;
    if (q.get("state") !== opts.state) {
      return refused(
        OAuthStateMismatch(`the redirect from ${opts.provider} carried the wrong state; login refused, try again`, {
          provider: opts.provider,
        }),
        "Login refused: this redirect does not belong to the login fermix started.",
      );
    }
    const error = q.get("error");
    if (error) {
      const description = q.get("error_description");
      const why = description ? `: ${description.replace(/\s+/g, " ").slice(0, 200)}` : "";
      return refused(
        OAuthDenied(`${opts.provider} did not authorize fermix (${error})${why}`, { provider: opts.provider, error }),
        "fermix was not authorized. You can close this tab.",
      );
    }
    const value = q.get("code");
    if (!value) {
      return refused(
        OAuthDenied(`the redirect from ${opts.provider} had no code`, { provider: opts.provider, error: "no_code" }),
        "The redirect had no authorization code. You can close this tab.",
      );
    }
    settle.resolve(value);
    if (opts.landing) return opts.landing(ended);
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
    end: (error) => (error === undefined ? finish.resolve() : finish.reject(error)),
    // Not forced: the page answering the redirect is still being sent when the login moves on.
    close: () => void server.stop(),
  };
}

function page(status: number, text: string): Response {
  return new Response(text, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
