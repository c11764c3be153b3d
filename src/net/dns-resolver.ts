import { nodeModule } from "../runtime/host.ts";
import type { Resolver } from "./types.ts";

/**
 * The system resolver, asked once for every A and AAAA answer. All of them are vetted and the connection is pinned
 * to one, so a name cannot answer "public" to the check and "private" to the connect (DNS rebinding).
 */
export const resolveWithDns: Resolver = async (host) => {
  // Loaded on the first lookup: a turn that fetches nothing never pays for node:dns (issue 31).
  const { lookup } = nodeModule<typeof import("node:dns/promises")>("node:dns/promises");
  const answers = await lookup(host, { all: true });
  return answers.map((answer) => answer.address);
};
