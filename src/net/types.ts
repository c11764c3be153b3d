/**
 * The one outbound door for tools and plugins. Every request goes through a GuardedFetch: URL checks,
 * DNS answers vetted, the connection pinned to the vetted address, redirects re-checked hop by hop,
 * size caps while streaming.
 */
export type GuardedRequest = {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Stop reading after this many bytes (the answer is marked truncated). */
  maxBytes?: number;
  /** Follow at most this many redirects, each re-checked (0 = return the 3xx as is). */
  maxRedirects?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
};

export type GuardedResponse = {
  status: number;
  headers: Headers;
  /** The final URL after redirects. */
  url: string;
  body: Uint8Array;
  truncated: boolean;
};

export type GuardedFetch = (url: string, request?: GuardedRequest) => Promise<GuardedResponse>;

/** Resolves a host name to its A and AAAA addresses. */
export type Resolver = (host: string) => Promise<string[]>;
