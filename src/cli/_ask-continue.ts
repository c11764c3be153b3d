import { processEnv } from "../config/env.ts";
import { fermixPaths, resolveHome } from "../config/paths.ts";
import { FermixError } from "../error.ts";
import { recentChats } from "../memory/messages.ts";
import { fileExists } from "../runtime/files.ts";
import { openSqlite } from "../runtime/sqlite.ts";

/**
 * `ask -c`: the CLI session whose conversation changed last (the newest message on the `cli` channel), read from
 * memory.db opened read-only, so it works the same whether the daemon or this process runs the turn.
 */
export async function lastCliSession(): Promise<string> {
  const db = fermixPaths(resolveHome(processEnv())).db;
  const found = (await fileExists(db)) ? latest(db) : undefined;
  if (!found) {
    throw new FermixError("no_session", "ask: --continue: there is no earlier `fermix ask` session to continue yet");
  }
  return found;
}

function latest(path: string): string | undefined {
  const db = openSqlite(path, { readonly: true });
  try {
    return recentChats(db, "cli", 1)[0];
  } finally {
    db.close();
  }
}
