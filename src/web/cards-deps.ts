import type { App } from "../app-contract.ts";
import type { Env } from "../config/env.ts";
import { createComputerUseWeb } from "./computer-use-deps.ts";
import { createConfigWrites } from "./config-writes.ts";
import { createHarnessWeb } from "./harness-deps.ts";
import { createMediaWeb } from "./media-deps.ts";
import { createMemoryWeb } from "./memory-deps.ts";
import type { WebDeps } from "./page.ts";
import { createSearchWeb } from "./search-deps.ts";
import { createTranscriptionWeb } from "./transcription-deps.ts";

/** The daemon's deps of the Voice notes, Search, Media, Sandbox, Coding agents and Memory pages, and the Plugins
 * page's Computer Use card. */
export function createCardsDeps(
  app: App,
  env: Env,
): Pick<WebDeps, "transcription" | "search" | "media" | "harness" | "sandbox" | "memory" | "computerUse"> {
  const writes = createConfigWrites({ paths: app.paths });
  return {
    transcription: createTranscriptionWeb(writes),
    search: createSearchWeb(writes, env),
    media: createMediaWeb(writes),
    harness: createHarnessWeb(writes, env),
    sandbox: { status: async () => app.sandbox().status() },
    memory: createMemoryWeb(() => app.memoryReview()),
    computerUse: createComputerUseWeb(writes, { env }),
  };
}
