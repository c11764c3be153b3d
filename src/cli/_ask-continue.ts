import { FermixError } from "../error.ts";
import { recentChats } from "../memory/messages.ts";
import { withLocalDatabase } from "./_local-db.ts";

/**
 * `ask -c`: the CLI session whose conversation changed last (the newest message on the `cli` channel), read from
 * memory.db opened read-only, so it works the same whether the daemon or this process runs the turn.
 */
export async function lastCliSession(): Promise<string> {
  const found = withLocalDatabase({ mode: "read", table: "messages" }, (db) => recentChats(db, "cli", 1)[0]);
  if (!found) {
    throw new FermixError("no_session", "ask: --continue: there is no earlier `fermix ask` session to continue yet");
  }
  return found;
}
