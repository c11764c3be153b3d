import { basename } from "node:path";
import { BUNDLED_PLUGINS } from "../plugins/manifest/checks.ts";
import { createTokenStore } from "../plugins/oauth/token-store.ts";
import { PluginRefused, UnknownPlugin } from "../plugins/plugin-host.ts";
import { type CliResult, enable } from "../plugins/settings/cli.ts";
import type { InstalledRecord } from "../plugins/store/store-record.ts";
import type { LivePluginState } from "../protocol/schemas.ts";
import { one, type PluginContext, pluginContext, settingsDeps } from "./_plugins.ts";
import { pluginsView, tellDaemonToReload } from "./_plugins-live.ts";
import { UsageError } from "./exit.ts";

const isBundled = (name: string) => (BUNDLED_PLUGINS as readonly string[]).includes(name);

/** The read-only views and the store operations. */
export async function storeCommand(sub: string, rest: string[]): Promise<CliResult | undefined> {
  switch (sub) {
    case "list":
    case "doctor": {
      const ctx = await pluginContext();
      const view = await pluginsView(ctx);
      let plugins = view.plugins;
      const only = sub === "doctor" ? rest[0] : undefined;
      if (only) {
        plugins = plugins.filter((s) => s.name === only);
        if (!plugins.length) throw UnknownPlugin(`unknown plugin "${only}"`, { name: only });
      }
      // The connected account where the sign-in named one (the token response's email or workspace); "—" otherwise.
      const tokens = createTokenStore(ctx.paths.auth);
      const accountOf = (name: string) => {
        try {
          return tokens.get(name)?.account;
        } catch {
          return undefined; // an unreadable auth.json is doctor's to report; the list still lists
        }
      };
      const rows = plugins.map((s) =>
        sub === "list"
          ? [
              s.name,
              s.version ?? "-",
              s.source,
              s.enabled ? "enabled" : "disabled",
              s.status,
              accountOf(s.name) ?? "—",
              ...(s.detail ? [s.detail] : []),
            ]
          : [s.name, s.status, doctorNote(s)],
      );
      // dev_local failures are loud (plugins spec): one `folder<TAB>problem` row each, after the plugins.
      const problems = view.problems.filter((p) => !only || basename(p.folder) === only);
      rows.push(...problems.map((p) => [p.folder, p.message]));
      const notes: string[] = [];
      if (!view.daemon && plugins.some((s) => s.enabled))
        notes.push(
          "the daemon is not running: these states come from config.toml; MCP servers start with it (fermix start)",
        );
      return {
        text: rows.map((r) => r.join("\t")).join("\n"),
        json: {
          daemon: view.daemon,
          plugins: sub === "list" ? plugins.map((s) => ({ ...s, account: accountOf(s.name) ?? null })) : plugins,
          problems,
        },
        notes,
      };
    }
    case "reload": {
      const told = await tellDaemonToReload({ devLocal: true });
      return {
        text: told
          ? "the daemon re-read its plugins; quarantined and dev_local servers are starting again (fermix plugins list shows them)"
          : "the daemon is not running; plugins are read when it starts, and by every one-shot ask",
        json: { reloaded: told, daemon: told },
      };
    }
    case "catalog": {
      const ctx = await pluginContext();
      const plugins = (await ctx.host.entries(ctx.config)).filter(
        (e) => e.source === "catalog" || e.source === "bundled" || e.latest,
      );
      const catalog = await ctx.host.catalogIndex();
      const rows = catalog.plugins.map((p) => [
        p.name,
        p.latest,
        p.auth_type,
        p.rails.join(","),
        isBundled(p.name) ? "bundled" : "catalog",
        p.description,
      ]);
      return {
        text: rows.map((r) => r.join("\t")).join("\n"),
        json: { plugins: catalog.plugins, known: plugins.length },
      };
    }
    case "installed": {
      const ctx = await pluginContext();
      const active = await ctx.host.store.list();
      const rows = active.map((a) => [
        a.record.name,
        a.record.version,
        a.record.verified_at,
        a.record.sha256.slice(0, 12),
      ]);
      return {
        text: rows.map((r) => r.join("\t")).join("\n") || "no plugins installed",
        json: { installed: active.map((a) => a.record) },
      };
    }
    case "install": {
      const [name, version] = splitAt(one(rest, "install NAME[@VER]"));
      const { record, enabled, notes } = await installFromCatalog(name, version, await pluginContext());
      return {
        text: `installed\t${record.name}\t${record.version}\t${record.sha256.slice(0, 12)}`,
        json: { ...record, enabled },
        notes,
      };
    }
    case "upgrade": {
      const name = one(rest, "upgrade NAME");
      const ctx = await pluginContext();
      const current = await ctx.host.store.current(name);
      const latest = (await ctx.host.catalogIndex()).plugins.find((p) => p.name === name)?.latest;
      if (!latest) throw UnknownPlugin(`no plugin named "${name}" in this build's catalog`, { name });
      if (current?.record.version === latest)
        return { text: `${name}\t${latest}\talready the latest`, json: current.record };
      const record = await ctx.host.install(name, latest, { allowBundled: isBundled(name) });
      return { text: `upgraded\t${name}\t${current?.record.version ?? "-"}\t${record.version}`, json: record };
    }
    case "pin": {
      const [name, version] = splitAt(one(rest, "pin NAME@VER"));
      if (!version) throw UsageError("usage: fermix plugins pin NAME@VER");
      const ctx = await pluginContext();
      const installed = await ctx.host.store.versions(name);
      const record = installed.includes(version)
        ? await ctx.host.store.activate(name, version)
        : await ctx.host.install(name, version, { allowBundled: isBundled(name) });
      return { text: `pinned\t${name}\t${record.version}`, json: record };
    }
    case "uninstall": {
      const name = one(rest, "uninstall NAME");
      if (isBundled(name))
        throw PluginRefused(
          `${name} is bundled and cannot be uninstalled; disable it with fermix plugins disable ${name}`,
          { name },
        );
      const ctx = await pluginContext();
      const removed = await ctx.host.store.uninstall(name);
      return { text: `uninstalled\t${name}\t${removed.join(",")}`, json: { name, removed } };
    }
    case "gc": {
      const ctx = await pluginContext();
      const report = await ctx.host.store.gc();
      const lines = report.removed.map((r) => `removed\t${r.name}\t${r.version}`);
      return { text: lines.join("\n") || "nothing to remove", json: report };
    }
    default:
      return undefined;
  }
}

/**
 * `install` (the CLI's and the setup page's): a plugin whose manifest says `default_enabled: true` is enabled too,
 * as `fermix plugins enable` would, when this install brings it onto the machine for the first time. Reinstalling
 * one that is already here leaves config.toml alone: an owner who disabled it keeps it disabled.
 */
export async function installFromCatalog(
  name: string,
  version: string | undefined,
  ctx: PluginContext,
): Promise<{ record: InstalledRecord; enabled: boolean; notes: string[] }> {
  // list(), not versions(): a malformed name should still meet the catalog's "no plugin named …".
  const fresh = !(await ctx.host.store.list()).some((a) => a.record.name === name);
  const record = await ctx.host.install(name, version);
  const listed = (ctx.config.fermix_core?.plugins?.enabled ?? []).includes(name);
  if (!fresh || listed) return { record, enabled: listed, notes: [] };
  const entry = (await ctx.host.entries(ctx.config)).find((e) => e.name === name);
  if (!entry?.manifest?.default_enabled) return { record, enabled: false, notes: [] };
  const result = await enable(name, await settingsDeps(ctx));
  return {
    record,
    enabled: true,
    notes: [`enabled ${name}: its manifest enables it by default`, ...(result.notes ?? [])],
  };
}

/** `enable` installs a catalog plugin first when it is not on this machine (the reference's behaviour). */
export async function enableWithInstall(name: string, ctx: PluginContext): Promise<CliResult> {
  const notes: string[] = [];
  const entry = (await ctx.host.entries(ctx.config)).find((e) => e.name === name);
  if (entry?.source === "catalog" && !entry.version) {
    const record = await ctx.host.install(name);
    notes.push(`installed ${name} ${record.version} from the catalog`);
  }
  const result = await enable(name, await settingsDeps(await pluginContext()));
  return { ...result, notes: [...notes, ...(result.notes ?? [])] };
}

function splitAt(spec: string): [string, string | undefined] {
  const at = spec.indexOf("@");
  return at < 0 ? [spec, undefined] : [spec.slice(0, at), spec.slice(at + 1) || undefined];
}

/** doctor's third column: why a plugin does not load, why its server is quarantined, or the fix. */
function doctorNote(s: LivePluginState): string {
  if (s.load_error) return s.load_error;
  if (s.status === "quarantined") return `${s.reason ?? "quarantined"}; ${s.fix ?? ""}`.replace(/; $/, "");
  if (s.status === "starting") return s.detail ?? "starting";
  return s.fix ?? "";
}
