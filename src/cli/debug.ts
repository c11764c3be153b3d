import { createHash } from "node:crypto";
import { embeddedFile, listEmbedded } from "../embedded/assets.ts";
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
    const bytes = await Bun.file(embeddedFile(path)).bytes();
    lines.push(`${path}\t${bytes.byteLength}\t${createHash("sha256").update(bytes).digest("hex")}`);
  }
  await writeOut(lines.length ? `${lines.join("\n")}\n` : "");
  return EXIT.ok;
}
