import type { Manifest } from "./manifest/schema.ts";
import { knownOAuthProviders, oauthProvider } from "./oauth/providers.ts";

/**
 * What a plugin does, read from its manifest, for `fermix plugins show`: the "see what a plugin does before you
 * trust it" view. Everything here comes from the manifest (its tools, their read_only flags and request URLs,
 * its auth block and runtime) plus what the provider table says of its OAuth endpoints; nothing is run.
 */
export type PluginProfile = {
  name: string;
  display_name: string;
  version: string;
  description: string;
  category: string;
  developer?: string;
  website?: string;
  /** "http": fermix makes the manifest's requests; "mcp": a local process the plugin ships answers the calls. */
  rails: ("http" | "mcp")[];
  runtime?: { kind: string; command: string; args: string[]; min_version?: string; vendored: boolean };
  auth: { type: string; provider?: string; scopes: string[]; key_name?: string };
  /** The hosts its http-rail requests and health check go to, and its OAuth sign-in's. */
  hosts: string[];
  oauth_hosts: string[];
  tools: {
    name: string;
    access: "read-only" | "write";
    rail: "http" | "mcp";
    description: string;
    requires_scopes?: string[];
    requires_setting?: string;
  }[];
  config: { key: string; required: boolean }[];
};

export function pluginProfile(manifest: Manifest): PluginProfile {
  const hosts = new Set<string>();
  const requests = [...manifest.tools.map((t) => t.request?.url), manifest.health_check?.url];
  for (const url of requests) {
    const host = url === undefined ? undefined : hostOf(url);
    if (host) hosts.add(host);
  }
  const auth = manifest.auth;
  const provider = auth.type === "oauth2" ? auth.provider : undefined;
  const oauthHosts = new Set<string>();
  if (provider && knownOAuthProviders().includes(provider)) {
    const p = oauthProvider(provider);
    for (const url of [p.authorizeUrl, p.tokenUrl]) oauthHosts.add(new URL(url).host);
  }
  const rails = [...new Set(manifest.tools.map((t) => t.rail))].sort() as ("http" | "mcp")[];
  return {
    name: manifest.name,
    display_name: manifest.display_name,
    version: manifest.version,
    description: manifest.description,
    category: manifest.category,
    ...(manifest.interface?.developer_name ? { developer: manifest.interface.developer_name } : {}),
    ...(manifest.interface?.website_url ? { website: manifest.interface.website_url } : {}),
    rails,
    ...(manifest.runtime
      ? {
          runtime: {
            kind: manifest.runtime.kind,
            command: manifest.runtime.command,
            args: manifest.runtime.args,
            ...(manifest.runtime.min_version ? { min_version: manifest.runtime.min_version } : {}),
            vendored: manifest.runtime.vendored,
          },
        }
      : {}),
    auth: {
      type: auth.type,
      ...(provider ? { provider } : {}),
      scopes: auth.type === "oauth2" ? [...auth.scopes] : [],
      ...(auth.type === "api_key" ? { key_name: auth.key_name } : {}),
    },
    hosts: [...hosts].sort(),
    oauth_hosts: [...oauthHosts].sort(),
    tools: manifest.tools.map((t) => ({
      name: t.name,
      access: t.read_only ? "read-only" : "write",
      rail: t.rail,
      description: t.description,
      ...(t.requires_scopes?.length ? { requires_scopes: t.requires_scopes } : {}),
      ...(t.requires_setting ? { requires_setting: t.requires_setting } : {}),
    })),
    config: manifest.config.map((c) => ({ key: c.key, required: c.required })),
  };
}

// Request URLs are https:// templates; the host part is literal in every manifest the catalog ships, and one
// that is a template ({workspace}.example.com) is shown as written, so the reader sees it is chosen at run time.
function hostOf(url: string): string | undefined {
  const match = /^https:\/\/([^/?#]+)/.exec(url);
  return match?.[1]?.toLowerCase();
}

/** The runtime line: the rails, and for an MCP plugin the local process it starts. */
export function describeRuntime(p: PluginProfile): string {
  const parts: string[] = [];
  if (p.rails.includes("http")) parts.push("http rail (fermix makes the requests; no local process)");
  if (p.rails.includes("mcp") && p.runtime) {
    const argv = [p.runtime.command, ...p.runtime.args].join(" ");
    const version = p.runtime.min_version ? ` ${p.runtime.min_version}+` : "";
    parts.push(
      `mcp rail (a local ${p.runtime.kind}${version} process: ${argv}${p.runtime.vendored ? ", vendored" : ""})`,
    );
  }
  return parts.join("; ");
}
