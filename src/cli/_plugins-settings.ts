import { type CliResult, disable } from "../plugins/settings/cli.ts";
import { one, pluginContext, settingsDeps } from "./_plugins.ts";
import { enableWithInstall } from "./_plugins-store.ts";

/** enable/disable: what lives in config.toml (config and auth have their own verbs: plugins-config.ts, plugins-auth.ts). */
export async function settingsCommand(sub: string, rest: string[]): Promise<CliResult | undefined> {
  const ctx = await pluginContext();
  switch (sub) {
    case "enable":
      return enableWithInstall(one(rest, "enable NAME"), ctx);
    case "disable":
      return disable(one(rest, "disable NAME"), await settingsDeps(ctx));
    default:
      return undefined;
  }
}
