import { defineError } from "../error.ts";
import { type HttpServer, serveHttp } from "../runtime/http.ts";

/**
 * The redirect target of a provider sign-in: a one-shot listener on 127.0.0.1 (never a wildcard address) on
 * the port and path the provider's registered client names. The first request to that path settles it:
 * a wrong `state` or an `error=` refuses the whole sign-in.
 */
export const AuthStateMismatch = defineError<{ profile: string }>("auth_state_mismatch");
export const AuthDenied = defineError<{ profile: string; error: string }>("auth_denied");
export const AuthPortInUse = defineError<{ port: number }>("auth_port_in_use");

export type Callback = { redirectUri: string; code: Promise<string>; close(): void };

export function listenForCallback(opts: {
  profile: string;
  label: string;
  state: string;
  host: string;
  port: number;
  path: string;
}): Callback {
  let settle!: { resolve: (code: string) => void; reject: (err: Error) => void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  code.catch(() => {}); // read later, by the sign-in's race with its timeout
  let done = false;

  const handle = (req: Request): Response => {
    const url = new URL(req.url);
    if (url.pathname !== opts.path) return page(404, "Not found.");
    if (done) return page(410, "This sign-in has already finished. You can close this tab.");
    done = true;
    const q = url.searchParams;
    if (q.get("state") !== opts.state) {
      settle.reject(
        AuthStateMismatch(`the redirect from ${opts.label} carried the wrong state; sign-in refused, try again`, {
          profile: opts.profile,
        }),
      );
      return page(400, "Sign-in refused: this redirect does not belong to the sign-in fermix started.");
    }
    const error = q.get("error");
    const value = q.get("code");
    if (error || !value) {
      const description = q.get("error_description");
      const why = description ? `: ${description.replace(/\s+/g, " ").slice(0, 200)}` : "";
      const err = error ?? "no_code";
      settle.reject(
        AuthDenied(`${opts.label} did not authorize fermix (${err})${why}`, { profile: opts.profile, error: err }),
      );
      return page(400, "fermix was not authorized. You can close this tab.");
    }
    settle.resolve(value);
    return page(200, "fermix is signed in. You can close this tab.");
  };

  let server: HttpServer;
  try {
    server = serveHttp({ hostname: "127.0.0.1", port: opts.port }, handle);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE" || /in use/i.test(String(err))) {
      throw AuthPortInUse(`port ${opts.port} on 127.0.0.1 is in use; close what holds it or pick another with --port`, {
        port: opts.port,
      });
    }
    throw err;
  }
  return {
    redirectUri: `http://${opts.host}:${server.port}${opts.path}`,
    code,
    // Not forced: the page answering the redirect may still be on its way out.
    close: () => void server.stop(),
  };
}

function page(status: number, text: string): Response {
  return new Response(text, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
