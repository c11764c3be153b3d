import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractPluginArchive } from "../plugins/archive/safe-extract.ts";
import { loadCatalog } from "../plugins/catalog/load-catalog.ts";
import type { Manifest } from "../plugins/manifest/schema.ts";
import { validatePluginDir } from "../plugins/manifest/validate.ts";
import { UnknownPlugin } from "../plugins/plugin-host.ts";
import { describeRuntime, type PluginProfile, pluginProfile } from "../plugins/plugin-profile.ts";
import type { CliResult } from "../plugins/settings/cli.ts";
import { VERSION } from "../version.ts";
import { one, pluginContext } from "./_plugins.ts";

/** Where the shown manifest came from, and what vouches for it. */
type Provenance = {
  source: string;
  installed?: string;
  enabled: boolean;
  size_bytes?: number;
  unpacked_bytes?: number;
  sha256?: string;
  signature: string;
};

/**
 * `fermix plugins show NAME`: a plugin's tools (read-only or write), the hosts it talks to, its OAuth scopes, its
 * runtime, size and signature — for a catalog plugin before it is installed too. A catalog plugin's manifest is
 * read from its artifact after the same checks an install makes (the catalog's sha256 and the signature against
 * the keys this build embeds), unpacked into a temporary folder that is removed again; nothing is installed.
 */
export async function showCommand(rest: string[]): Promise<CliResult> {
  const name = one(rest, "show NAME");
  const ctx = await pluginContext();
  const entry = (await ctx.host.entries(ctx.config)).find((e) => e.name === name);
  if (!entry) {
    throw UnknownPlugin(`no plugin named "${name}" (fermix plugins catalog lists the ones this build has)`, { name });
  }
  const enabled = (ctx.config.fermix_core?.plugins?.enabled ?? []).includes(name);
  let manifest: Manifest;
  let provenance: Provenance;
  if (entry.source === "dev_local") {
    if (!entry.manifest) throw UnknownPlugin(`${name} (dev_local) did not load: ${entry.loadError ?? "?"}`, { name });
    manifest = entry.manifest;
    provenance = {
      source: "dev_local",
      installed: entry.version,
      enabled,
      signature: "none (a dev_local folder is not signed)",
    };
  } else {
    // The catalog's artifact of the installed version when there is one, else of the latest: what was, or would
    // be, installed, with the same verdict on its signature.
    ({ manifest, provenance } = await fromCatalog(name, entry.version, enabled));
    provenance.installed = entry.version;
    provenance.source = entry.source;
  }
  const profile = pluginProfile(manifest);
  return { text: render(profile, provenance), json: { ...profile, ...provenance } };
}

async function fromCatalog(name: string, installed: string | undefined, enabled: boolean) {
  const catalog = await loadCatalog();
  const plugin = catalog.find(name);
  const version = installed && plugin?.versions.some((v) => v.version === installed) ? installed : plugin?.latest;
  // artifact() checks the sha256 the signed index records and the artifact's own signature, or throws.
  const file = await catalog.artifact(name, version);
  const dir = await mkdtemp(join(tmpdir(), "fermix-show-"));
  try {
    const tree = join(dir, "tree");
    const extracted = await extractPluginArchive(file.bytes, tree, { allowRuntimeFiles: true });
    const verdict = await validatePluginDir(tree, {
      expectedName: name,
      expectedVersion: file.version,
      coreVersion: VERSION,
    });
    if (!verdict.ok) {
      const lines = verdict.errors.map((e) => `${e.path || "plugin.json"}: ${e.message}`).join("; ");
      throw UnknownPlugin(`${name} ${file.version}: the catalog's manifest does not validate: ${lines}`, { name });
    }
    const provenance: Provenance = {
      source: "catalog",
      enabled,
      size_bytes: file.bytes.byteLength,
      unpacked_bytes: extracted.bytes,
      sha256: file.sha256,
      signature: "verified (sha256 matches the signed catalog; signature checked against this build's keys)",
    };
    return { manifest: verdict.manifest, provenance };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function render(p: PluginProfile, o: Provenance): string {
  const state =
    o.source === "dev_local"
      ? `dev_local (loaded in place), ${o.enabled ? "enabled" : "disabled"}`
      : o.installed
        ? `${o.source}, installed ${o.installed}, ${o.enabled ? "enabled" : "disabled"}`
        : o.source === "bundled"
          ? `bundled (unpacked on first use), ${o.enabled ? "enabled" : "disabled"}`
          : `${o.source}, not installed`;
  const scopes = p.auth.scopes.length ? p.auth.scopes.join(" ") : "—";
  const auth =
    p.auth.type === "oauth2"
      ? `oauth2 (${p.auth.provider})`
      : p.auth.type === "api_key"
        ? `api_key (${p.auth.key_name})`
        : "none";
  const rows: string[][] = [
    ["name", `${p.name} ${p.version} — ${p.display_name}`],
    ["about", p.description],
    ["state", state],
    ...(p.developer ? [["developer", p.developer]] : []),
    ["runtime", describeRuntime(p)],
    ["auth", auth],
    ["scopes", scopes],
    ["hosts", p.hosts.length ? p.hosts.join(" ") : p.rails.includes("mcp") ? "— (its local process decides)" : "—"],
    ...(p.oauth_hosts.length ? [["sign-in", p.oauth_hosts.join(" ")]] : []),
    ...(o.size_bytes !== undefined ? [["size", `${kib(o.size_bytes)} (${kib(o.unpacked_bytes ?? 0)} unpacked)`]] : []),
    ...(o.sha256 ? [["sha256", o.sha256]] : []),
    ["signature", o.signature],
    ...(p.config.length
      ? [["config", p.config.map((c) => `${c.key}${c.required ? " (required)" : ""}`).join(" ")]]
      : []),
    ...p.tools.map((t) => [
      "tool",
      t.name,
      t.access,
      `${t.description}${t.requires_scopes ? ` [needs ${t.requires_scopes.join(" ")}]` : ""}${t.requires_setting ? ` [needs ${t.requires_setting}]` : ""}`,
    ]),
  ];
  return rows.map((r) => r.join("\t")).join("\n");
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}
