/**
 * What the plugin API fakes share: each request is recorded as it arrived (method, path, query, headers, body)
 * so tests can assert on the wire, and JSON answers carry the content type the real services send.
 */
export type Seen = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: string;
};

export async function record(request: Request, seen: Seen[]): Promise<Seen> {
  const url = new URL(request.url);
  const entry = {
    method: request.method,
    path: url.pathname,
    query: url.searchParams,
    headers: request.headers,
    body: await request.text(),
  };
  seen.push(entry);
  return entry;
}

export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** The bearer token of a request, or undefined. */
export function bearer(seen: Seen): string | undefined {
  const m = /^(?:Bearer|Bot) (.+)$/.exec(seen.headers.get("authorization") ?? "");
  return m?.[1];
}
