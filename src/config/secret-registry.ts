import { resolveSecret, type SecretDeps } from "./secrets.ts";
import type { SecretRef } from "./sections/secret-ref.ts";

/**
 * The one place a process resolves the owner's secrets (provider and plugin keys, channel tokens, MCP bearer
 * tokens, transcription and search keys): each is registered as it is resolved, and the log and the traces
 * redact every registered one.
 */
export interface SecretRegistry {
  resolve(ref: SecretRef, slot: string): string;
  /** Registers a secret found some other way (an exporter's header, a route's key). */
  redact(secret: string | undefined): void;
  /** Registers each route's key; hands the routes back. */
  redactRoutes<R extends { target: { apiKey?: string } }>(routes: R[]): R[];
  /** What to redact, now. */
  list(): string[];
}

export function createSecretRegistry(deps: SecretDeps): SecretRegistry {
  const known = new Set<string>();
  const redact = (secret: string | undefined) => {
    if (secret) known.add(secret);
  };
  return {
    resolve(ref, slot) {
      const value = resolveSecret(ref, slot, deps);
      redact(value);
      return value;
    },
    redact,
    redactRoutes(routes) {
      for (const route of routes) redact(route.target.apiKey);
      return routes;
    },
    list: () => [...known],
  };
}
