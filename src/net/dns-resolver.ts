import { lookup } from "node:dns/promises";
import type { Resolver } from "./types.ts";

/**
 * The system resolver, asked once for every A and AAAA answer. All of them are vetted and the connection is pinned
 * to one, so a name cannot answer "public" to the check and "private" to the connect (DNS rebinding).
 */
export const resolveWithDns: Resolver = async (host) => {
  const answers = await lookup(host, { all: true });
  return answers.map((answer) => answer.address);
};
