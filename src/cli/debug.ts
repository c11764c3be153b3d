import { createHash } from "node:crypto";
import { embeddedFile, listEmbedded } from "../embedded/assets.ts";
import { defineCliCommand } from "./command.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";

/** Hidden diagnostics for developers and support: `fermix debug embedded` lists what the binary carries. */
const command = defineCliCommand({
  meta: { name: "debug", usage: "debug embedded", description: "Developer diagnostics (not a stable interface)." },
  options: {},
  async run(rawArgs) {
    if (rawArgs[0] !== "embedded") throw UsageError("debug: the only topic is `embedded`");
    const lines: string[] = [];
    for (const path of listEmbedded()) {
      const bytes = await Bun.file(embeddedFile(path)).bytes();
      lines.push(`${path}\t${bytes.byteLength}\t${createHash("sha256").update(bytes).digest("hex")}`);
    }
    await writeOut(lines.length ? `${lines.join("\n")}\n` : "");
    return EXIT.ok;
  },
});

export default command;
