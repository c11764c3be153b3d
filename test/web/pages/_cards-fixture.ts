import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SecretStore } from "../../../src/config/secret-store.ts";
import { createConfigWrites } from "../../../src/web/config-writes.ts";
import { createHarnessWeb } from "../../../src/web/harness-deps.ts";
import { createMediaWeb } from "../../../src/web/media-deps.ts";
import type { RenderContext, WebDeps } from "../../../src/web/page.ts";
import { createSearchWeb } from "../../../src/web/search-deps.ts";
import { createTranscriptionWeb } from "../../../src/web/transcription-deps.ts";
import { tempHome } from "../../fixture/home.ts";

/**
 * The card pages' deps as the daemon builds them, on a temp config.toml: the real in-place config edit, and either a
 * fake secret store that records what it was given (the keyring) or, with `realStore`, the real one as config says.
 */
export function cardsFixture(
  toml: string,
  defer: (undo: () => unknown) => void,
  opts: { env?: Record<string, string>; find?: (cmd: string) => string | null; realStore?: boolean } = {},
) {
  const h = tempHome();
  defer(() => h[Symbol.asyncDispose]());
  const file = h.writeConfig(toml);
  const secretsDir = join(h.home, "secrets");
  const stored = new Map<string, string>();
  const store: SecretStore = {
    store: async (slot, value) => {
      stored.set(slot, value);
      return { where: "keyring" };
    },
    clear: async (slot) => {
      stored.delete(slot);
    },
    has: (slot) => stored.has(slot),
  };
  const writes = createConfigWrites({
    paths: { config: file, secrets: secretsDir },
    ...(opts.realStore ? {} : { store: () => store }),
  });
  const env = opts.env ?? {};
  const deps = {
    transcription: createTranscriptionWeb(writes),
    search: createSearchWeb(writes, env),
    media: createMediaWeb(writes),
    harness: createHarnessWeb(writes, env, opts.find ?? (() => null)),
  } as WebDeps;
  return { deps, file, secretsDir, stored, read: () => readFileSync(file, "utf8") };
}

export const ctx = (o: Partial<RenderContext> = {}): RenderContext => ({
  csrf: "tok",
  query: new URLSearchParams(),
  ...o,
});

export const form = (o: Record<string, string>) => new URLSearchParams(o);
