import type { CommandDef } from "citty";
import type { Chain } from "./chain.ts";
import { resolveValue } from "./command.ts";

/** Every command under `root` (itself, groups, hidden ones) with the words that name it ("" for the root). */
export async function commandChains(root: CommandDef<any>): Promise<Array<{ words: string; chain: Chain }>> {
  const out: Array<{ words: string; chain: Chain }> = [];
  const visit = async (chain: Chain) => {
    out.push({
      words: chain
        .slice(1)
        .map((link) => link.name)
        .join(" "),
      chain,
    });
    const { cmd } = chain.at(-1)!;
    const subs = cmd.subCommands ? await resolveValue(cmd.subCommands) : {};
    for (const [name, entry] of Object.entries(subs)) {
      await visit([...chain, { name, cmd: (await resolveValue(entry)) as CommandDef<any> }]);
    }
  };
  await visit([{ name: String((await resolveValue(root.meta ?? {})).name ?? ""), cmd: root }]);
  return out;
}
