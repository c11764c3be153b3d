import type { CliResult } from "../plugins/settings/cli.ts";
import { pluginContext } from "./_plugins.ts";
import { tellDaemonToReload } from "./_plugins-live.ts";
import { settingsCommand } from "./_plugins-settings.ts";
import { storeCommand } from "./_plugins-store.ts";
import { type ParsedArgs, parseStrict } from "./args.ts";
import { defineCliCommand } from "./command.ts";
import { EXIT, jsonEnvelope, UsageError } from "./exit.ts";
import { writeErr, writeOut } from "./output.ts";
import { runValidate } from "./plugins-validate.ts";

const USAGE = [
  "plugins list | catalog | installed | doctor [NAME] | reload",
  "plugins enable NAME | disable NAME",
  "plugins install NAME[@VER] | upgrade NAME | pin NAME@VER | uninstall NAME | gc",
  "plugins validate DIR",
  "plugins config NAME | config set NAME KEY VALUE",
  "plugins auth set NAME (secret on stdin) | auth clear NAME | auth status [NAME]",
].join("\n       fermix ");

const command = defineCliCommand({
  meta: {
    name: "plugins",
    usage: USAGE,
    description:
      "Manage plugins from the signed catalog inside this binary. Plain output is tab-separated; --json gives the typed envelope.",
  },
  options: { json: { type: "boolean", description: "print the typed JSON envelope" } },
  async run(rawArgs) {
    const args = parseStrict(rawArgs, command.options, "plugins");
    const [sub, ...rest] = args._;
    if (!sub) throw UsageError(`usage: fermix ${USAGE}`);
    if (sub === "validate") {
      if (rest.length !== 1) throw UsageError("usage: fermix plugins validate DIR");
      return runValidate(rest[0]!, args.json === true);
    }
    const result = (await storeCommand(sub, rest)) ?? (await settingsCommand(sub, rest));
    if (!result) throw UsageError(`plugins: unknown subcommand "${sub}"\nusage: fermix ${USAGE}`);
    // The spec: enabling or disabling (or any change to a plugin) asks a running daemon to re-apply its
    // configuration now, which also starts a quarantined server fresh. Best effort: the change itself is done.
    if (changesPlugins(sub, rest)) await tellDaemonToReload(await pluginContext()).catch(() => false);
    return print(result, args);
  },
});

export default command;

const VIEWS = new Set(["list", "doctor", "catalog", "installed", "reload"]);

function changesPlugins(sub: string, rest: string[]): boolean {
  if (VIEWS.has(sub)) return false;
  if (sub === "config") return rest[0] === "set";
  if (sub === "auth") return rest[0] !== "status";
  return true;
}

async function print(result: CliResult, args: ParsedArgs): Promise<number> {
  if (args.json) {
    await writeOut(`${jsonEnvelope({ ok: true, result: result.json })}\n`);
  } else {
    if (result.text) await writeOut(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
    for (const note of result.notes ?? []) await writeErr(`${note}\n`);
  }
  return EXIT.ok;
}
