import { createHash, randomBytes } from "node:crypto";

/**
 * The browser half of an authorization-code sign-in with PKCE (S256), shared by the chat providers' sign-in
 * (src/auth/login.ts) and the plugins' (src/plugins/oauth/login.ts): the secrets of one attempt, its authorize URL,
 * and the wait for the loopback redirect — the URL printed, a browser opened without holding up the timeout.
 */
export type PkceAttempt = { verifier: string; challenge: string; state: string };

export function newPkceAttempt(): PkceAttempt {
  const verifier = randomBytes(32).toString("base64url");
  return {
    verifier,
    challenge: createHash("sha256").update(verifier).digest("base64url"),
    state: randomBytes(16).toString("base64url"),
  };
}

/** The authorize URL: the flow's fixed parameters, then the provider's own (scope, prompts, audience…). */
export function authorizeUrl(
  base: string,
  attempt: PkceAttempt,
  params: { clientId: string; redirectUri: string; extra?: Record<string, string | undefined> },
): string {
  const url = new URL(base);
  const query: Record<string, string | undefined> = {
    response_type: "code",
    client_id: params.clientId,
    redirect_uri: params.redirectUri,
    state: attempt.state,
    code_challenge: attempt.challenge,
    code_challenge_method: "S256",
    ...params.extra,
  };
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * Shows the URL, opens the browser when asked, and waits for the redirect's code or the timeout, whichever first.
 * The launcher is not awaited: one that hangs must not hold off the timeout, one that fails leaves the printed URL.
 */
export async function awaitRedirect(opts: {
  url: string;
  code: Promise<string>;
  timeoutMs: number;
  timedOut: (seconds: number) => Error;
  printUrl: (url: string) => void;
  openBrowser?: (url: string) => void;
}): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(opts.timedOut(Math.ceil(opts.timeoutMs / 1000))), opts.timeoutMs);
  });
  opts.printUrl(opts.url);
  if (opts.openBrowser) {
    const open = opts.openBrowser;
    void Promise.resolve()
      .then(() => open(opts.url))
      .catch(() => {});
  }
  try {
    return await Promise.race([opts.code, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
