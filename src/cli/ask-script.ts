import type { AskDone, AskRequest } from "../protocol/schemas.ts";
import type { ParsedArgs } from "./args.ts";
import { EXIT, UsageError } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";

/** Which block `-x` / `--extract-last` wants; undefined without either. */
export function extractWanted(args: ParsedArgs): "first" | "last" | undefined {
  if (args.extract === true && args["extract-last"] === true) {
    throw UsageError("ask: give --extract or --extract-last, not both");
  }
  const which = args.extract === true ? "first" : args["extract-last"] === true ? "last" : undefined;
  if (which && args.json === true) throw UsageError("ask: --extract prints the code alone; it does not go with --json");
  return which;
}

/** Whether the attachments take stdin (`-a -`): the question then comes from the words alone. */
export function attachesStdin(args: ParsedArgs): boolean {
  return attached(args).includes("-");
}

/**
 * The request fields these options add, checked before anything is sent: conflicting options and bad files are
 * usage errors (exit 2). Built-in tool names are checked by the side that runs the turn, which knows them.
 */
export async function scriptFields(
  args: ParsedArgs,
): Promise<Pick<AskRequest, "session_id" | "attachments" | "system" | "tools">> {
  if (args.continue === true && args.session !== undefined) {
    throw UsageError("ask: --continue picks the last session itself; give it or --session, not both");
  }
  if (args["no-tools"] === true && args.tools !== undefined)
    throw UsageError("ask: give --tools or --no-tools, not both");
  const fields: Pick<AskRequest, "session_id" | "attachments" | "system" | "tools"> = {};
  if (args.continue === true) fields.session_id = await (await import("./_ask-continue.ts")).lastCliSession();
  const attach = attached(args);
  if (attach.length) fields.attachments = await (await import("./_ask-attachments.ts")).readAttachments(attach);
  if (typeof args.system === "string") fields.system = args.system;
  if (args["no-tools"] === true) fields.tools = [];
  else if (typeof args.tools === "string") fields.tools = toolNames(args.tools);
  return fields;
}

/** `--attach`'s values; a verb that borrows the option without `meta.repeatable` gets its one value as a string. */
function attached(args: ParsedArgs): string[] {
  const given = args.attach;
  return Array.isArray(given) ? given : typeof given === "string" ? [given] : [];
}

function toolNames(list: string): string[] {
  const names = list.split(",").map((n) => n.trim());
  if (names.some((n) => !n)) throw UsageError("ask: --tools takes names separated by commas (file_read,shell)");
  return [...new Set(names)];
}

/**
 * What follows a plain answer: `-x`'s code block on stdout (none: a note on stderr and exit 1, so a script does not
 * run an empty file), then `-u`'s usage line on stderr. The exit code.
 */
export async function printAfterAnswer(
  done: Pick<AskDone, "response" | "usage">,
  opts: { extract?: "first" | "last"; usage: boolean },
): Promise<number> {
  let code: number = EXIT.ok;
  if (opts.extract) {
    // Loaded for -x alone (and -u's for -u): every module is a chunk a plain ask would load after its answer
    // (issue 31).
    const { extractCodeBlock } = await import("./_ask-extract.ts");
    const block = extractCodeBlock(done.response, opts.extract);
    if (block === undefined) {
      await writeErr("fermix: the answer has no fenced code block to extract; nothing printed\n");
      code = EXIT.error;
    } else await writeOut(`${block}\n`);
  }
  if (opts.usage) {
    const { NO_USAGE, usageLine } = await import("./_ask-usage.ts");
    await writeErr(`${usageLine(done.usage ?? NO_USAGE)}\n`);
  }
  return code;
}
