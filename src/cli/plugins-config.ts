import { configSet, configShow } from "../plugins/settings/cli.ts";
import { pluginContext, settingsDeps } from "./_plugins.ts";
import { JSON_ARG, PLUGIN_ARG, runPluginVerb } from "./_plugins-verb.ts";
import { defineCommand } from "./command.ts";

/** `fermix plugins config NAME` shows a plugin's settings; `… config set NAME KEY VALUE` changes one. */
export default defineCommand({
  meta: {
    name: "config",
    usage: "plugins config [--json] NAME\nplugins config set NAME KEY VALUE",
    description: "Show a plugin's settings, or set one",
  },
  args: { name: PLUGIN_ARG, json: JSON_ARG },
  subCommands: {
    set: defineCommand({
      meta: { name: "set", description: "Set one of a plugin's settings in config.toml" },
      args: {
        name: PLUGIN_ARG,
        key: {
          type: "positional",
          required: true,
          valueHint: "KEY",
          description: "the setting, as the plugin declares it",
        },
        value: { type: "positional", required: true, valueHint: "VALUE", description: "its new value" },
        json: JSON_ARG,
      },
      run: ({ args }) =>
        runPluginVerb(
          async () => configSet(args.name, args.key, args.value, await settingsDeps(await pluginContext())),
          { json: args.json, changes: true },
        ),
    }),
  },
  run: ({ args }) =>
    runPluginVerb(async () => configShow(args.name, await settingsDeps(await pluginContext())), {
      json: args.json,
      changes: false,
    }),
});
