import { embeddedFile, listEmbedded } from "../embedded/assets.ts";
import { readBytes } from "../runtime/files.ts";
import { sha256Hex } from "../runtime/hash.ts";
import { defineCommand } from "./command.ts";
import { EXIT } from "./exit.ts";
import { writeOut } from "./output.ts";

/** Hidden diagnostics for developers and support: `fermix debug embedded` lists what the binary carries. */
export default defineCommand({
  meta: { name: "debug", hidden: true, description: "Developer diagnostics (not a stable interface)" },
  subCommands: {
    embedded: defineCommand({
      meta: { name: "embedded", description: "List the files this binary carries, with sizes and sha256" },
      run: listEmbeddedFiles,
    }),
  },
});

async function listEmbeddedFiles(): Promise<number> {
  const lines: string[] = [];
  for (const path of listEmbedded()) {
    const bytes = await readBytes(embeddedFile(path));
    lines.push(`${path}\t${bytes.byteLength}\t${sha256Hex(bytes)}`);
  }
  await writeOut(lines.length ? `${lines.join("\n")}\n` : "");
  return EXIT.ok;
}
