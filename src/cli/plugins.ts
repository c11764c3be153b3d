import type { ArgsDef, CommandMeta } from "citty";
import { settingsCommand } from "./_plugins-settings.ts";
import { storeCommand } from "./_plugins-store.ts";
import { JSON_ARG, PLUGIN_ARG, runPluginVerb } from "./_plugins-verb.ts";
import { defineCommand, lazy } from "./command.ts";
import { runValidate } from "./plugins-validate.ts";

const OPTIONAL_PLUGIN = { ...PLUGIN_ARG, required: false } as const;

export default defineCommand({
  meta: {
    name: "plugins",
    description: "Manage plugins: list, catalog, install, enable, configure, sign in, …",
    details:
      "Plugins come from the signed catalog inside this binary. Plain output is tab-separated; --json gives the typed envelope.",
    examples: [
      "fermix plugins catalog",
      "fermix plugins enable github",
      'echo "$TOKEN" | fermix plugins auth set slack',
      "fermix plugins doctor",
    ],
  },
  subCommands: {
    list: verb({ name: "list", description: "List the plugins fermix knows, with source, state and status" }),
    catalog: verb({ name: "catalog", description: "List the plugins in this build's signed catalog" }),
    show: verb(
      {
        name: "show",
        description: "Show what a plugin does before you trust it: tools, hosts, scopes, runtime, size, signature",
      },
      { name: PLUGIN_ARG },
    ),
    installed: verb({ name: "installed", description: "List the installed plugin versions" }),
    doctor: verb(
      { name: "doctor", description: "Say what each plugin (or one) needs before it works" },
      { name: OPTIONAL_PLUGIN },
    ),
    reload: verb({
      name: "reload",
      description: "Have a running daemon re-read its plugins and restart quarantined and dev_local servers",
    }),
    enable: verb(
      { name: "enable", description: "Enable a plugin, installing it from the catalog first when needed" },
      { name: PLUGIN_ARG },
      true,
    ),
    disable: verb(
      { name: "disable", description: "Disable a plugin (it stays installed)" },
      { name: PLUGIN_ARG },
      true,
    ),
    install: verb(
      { name: "install", description: "Install a plugin from the catalog (the latest version, or VER)" },
      { name: { ...PLUGIN_ARG, valueHint: "NAME[@VER]" } },
      true,
    ),
    upgrade: verb(
      { name: "upgrade", description: "Upgrade a plugin to the catalog's latest version" },
      { name: PLUGIN_ARG },
      true,
    ),
    pin: verb(
      { name: "pin", description: "Use version VER of a plugin, installing it when needed" },
      { name: { ...PLUGIN_ARG, valueHint: "NAME@VER" } },
      true,
    ),
    uninstall: verb(
      { name: "uninstall", description: "Remove every installed version of a plugin" },
      { name: PLUGIN_ARG },
      true,
    ),
    gc: verb({ name: "gc", description: "Remove installed versions that nothing uses" }, {}, true),
    validate: defineCommand({
      meta: {
        name: "validate",
        description: "Check a plugin checkout as an install would",
        details: "The directory's name must be the plugin's name, as it must be under dev_local.",
      },
      args: {
        dir: { type: "positional", required: true, valueHint: "DIR", description: "the plugin's directory" },
        json: JSON_ARG,
      },
      run: ({ args }) => runValidate(args.dir, args.json === true),
    }),
    config: lazy(() => import("./plugins-config.ts")),
    auth: lazy(() => import("./plugins-auth.ts")),
  },
});

/**
 * A subcommand served by the store and settings code: the words it is given are its positionals, in order.
 * `changes`: it changes a plugin, so a running daemon is told.
 */
function verb(meta: CommandMeta & { name: string }, positionals: ArgsDef = {}, changes = false) {
  return defineCommand({
    meta,
    args: { ...positionals, json: JSON_ARG },
    run: ({ args }) => {
      const words = Object.keys(positionals).flatMap((key) => (typeof args[key] === "string" ? [args[key]] : []));
      return runPluginVerb(() => serve(meta.name, words), { json: args.json, changes });
    },
  });
}

async function serve(sub: string, words: string[]) {
  if (sub === "show") return (await import("./_plugins-show.ts")).showCommand(words);
  const result = (await storeCommand(sub, words)) ?? (await settingsCommand(sub, words));
  if (!result) throw new Error(`plugins ${sub} has no handler`);
  return result;
}
