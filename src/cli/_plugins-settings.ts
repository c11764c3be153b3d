import {
  authClear,
  authSet,
  authStatus,
  type CliResult,
  configSet,
  configShow,
  disable,
} from "../plugins/settings/cli.ts";
import { one, pluginContext, settingsDeps } from "./_plugins.ts";
import { oauthCommand } from "./_plugins-oauth.ts";
import { enableWithInstall } from "./_plugins-store.ts";
import { UsageError } from "./exit.ts";

/** enable/disable, config and auth: what lives in config.toml and the secret store. */
export async function settingsCommand(sub: string, rest: string[]): Promise<CliResult | undefined> {
  const ctx = await pluginContext();
  switch (sub) {
    case "enable":
      return enableWithInstall(one(rest, "enable NAME"), ctx);
    case "disable":
      return disable(one(rest, "disable NAME"), await settingsDeps(ctx));
    case "config": {
      if (rest[0] === "set") {
        if (rest.length !== 4) throw UsageError("usage: fermix plugins config set NAME KEY VALUE");
        return configSet(rest[1]!, rest[2]!, rest[3]!, await settingsDeps(ctx));
      }
      return configShow(one(rest, "config NAME"), await settingsDeps(ctx));
    }
    case "auth": {
      const [action, name, ...extra] = rest;
      if (action === "set" && name)
        return authSet(
          name,
          await settingsDeps(
            ctx,
            extra.filter((w) => w !== "--stdin"),
          ),
        );
      if (action === "clear" && name && !extra.length) return authClear(name, await settingsDeps(ctx));
      if (action === "status" && !extra.length) return authStatus(name, await settingsDeps(ctx));
      if (action && ["login", "reauthorize", "refresh", "logout"].includes(action) && name) {
        return oauthCommand(action, name, extra, ctx);
      }
      throw UsageError("usage: fermix plugins auth set NAME | auth clear NAME | auth status [NAME]");
    }
    default:
      return undefined;
  }
}
