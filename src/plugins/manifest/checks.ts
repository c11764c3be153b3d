import { type ManifestIssue, shown } from "./issues.ts";
import { SEMVER } from "./schema.ts";
import { checkHeaders, checkRequestTemplate, checkUrl, isRecord } from "./templates.ts";

/**
 * Rules that span fields, run on the manifest as written so they are reported alongside schema issues
 * (an author fixing one problem should not meet the next only on the following run). Each check skips
 * values of the wrong type: the schema already reports those.
 */

export const SUPPORTED_PLUGIN_APIS = [2, 3] as const;
/** Always present and never installable; a skill by one of these names would shadow theirs. */
export const BUNDLED_PLUGINS = ["gmail", "google_calendar", "google_drive"] as const;

export type CheckOptions = { expectedName?: string; expectedVersion?: string; coreVersion: string };

export function crossFieldIssues(raw: Record<string, unknown>, opts: CheckOptions): ManifestIssue[] {
  return [
    ...identityIssues(raw, opts),
    ...toolIssues(raw),
    ...runtimeIssues(raw),
    ...authIssues(raw),
    ...skillIssues(raw),
    ...miscIssues(raw),
  ];
}

function identityIssues(raw: Record<string, unknown>, opts: CheckOptions): ManifestIssue[] {
  const issues: ManifestIssue[] = [];
  if (opts.expectedName !== undefined && typeof raw.name === "string" && raw.name !== opts.expectedName) {
    issues.push({
      path: "name",
      message: `must be ${shown(opts.expectedName)}, the name it is installed or found as (got ${shown(raw.name)})`,
    });
  }
  if (opts.expectedVersion !== undefined && typeof raw.version === "string" && raw.version !== opts.expectedVersion) {
    issues.push({
      path: "version",
      message: `must be ${shown(opts.expectedVersion)}, the version requested (got ${shown(raw.version)})`,
    });
  }
  if (
    typeof raw.plugin_api === "number" &&
    Number.isInteger(raw.plugin_api) &&
    !SUPPORTED_PLUGIN_APIS.includes(raw.plugin_api as 2)
  ) {
    issues.push({
      path: "plugin_api",
      message: `${raw.plugin_api} is not supported by this fermix (supported: ${SUPPORTED_PLUGIN_APIS.join(", ")})`,
    });
  }
  const core = coreVersionOf(opts.coreVersion);
  if (typeof raw.min_core_version === "string" && SEMVER.test(raw.min_core_version) && core) {
    if (compareVersions(raw.min_core_version, core) > 0) {
      issues.push({
        path: "min_core_version",
        message: `needs fermix ${raw.min_core_version} or newer; this is ${core} (run fermix upgrade)`,
      });
    }
  }
  return issues;
}

function toolIssues(raw: Record<string, unknown>): ManifestIssue[] {
  const tools = Array.isArray(raw.tools) ? raw.tools : [];
  const plugin = typeof raw.name === "string" ? raw.name : undefined;
  const configKeys = new Map<string, unknown>();
  if (Array.isArray(raw.config))
    for (const c of raw.config) if (isRecord(c) && typeof c.key === "string") configKeys.set(c.key, c.kind ?? "text");
  const auth = isRecord(raw.auth) ? raw.auth : { type: "none" };
  const scopes = auth.type === "oauth2" && Array.isArray(auth.scopes) ? new Set(auth.scopes) : undefined;
  const seen = new Map<string, number>();
  const issues: ManifestIssue[] = [];
  tools.forEach((tool, i) => {
    if (!isRecord(tool)) return;
    const at = `tools[${i}]`;
    if (typeof tool.name === "string") {
      if (plugin && !tool.name.startsWith(`${plugin}_`)) {
        issues.push({ path: `${at}.name`, message: `must start with "${plugin}_" (got ${shown(tool.name)})` });
      }
      // MCP discovery folds names to [a-z0-9_]; two names that fold alike would register as one tool.
      const folded = tool.name.toLowerCase().replace(/-/g, "_");
      const first = seen.get(folded);
      if (first !== undefined)
        issues.push({ path: `${at}.name`, message: `repeats tools[${first}].name; tool names must be unique` });
      else seen.set(folded, i);
    }
    const rail = tool.rail ?? "http";
    if (rail === "http" && tool.request === undefined) {
      issues.push({ path: `${at}.request`, message: "is required for an http rail tool (the request fermix makes)" });
    }
    if (rail === "mcp" && tool.request !== undefined) {
      issues.push({
        path: `${at}.request`,
        message: "must not be set on an mcp rail tool; its server handles the call",
      });
    }
    if (rail === "http") issues.push(...checkRequestTemplate(tool.request, tool.parameters, `${at}.request`));
    issues.push(...parameterIssues(tool.parameters, `${at}.parameters`));
    if (Array.isArray(tool.requires_scopes)) {
      if (!scopes && tool.requires_scopes.length) {
        issues.push({ path: `${at}.requires_scopes`, message: "needs auth.type oauth2; only OAuth grants scopes" });
      } else if (scopes) {
        tool.requires_scopes.forEach((scope, j) => {
          if (typeof scope === "string" && !scopes.has(scope)) {
            issues.push({
              path: `${at}.requires_scopes[${j}]`,
              message: `${shown(scope)} is not listed in auth.scopes`,
            });
          }
        });
      }
    }
    if (typeof tool.requires_setting === "string") {
      const kind = configKeys.get(tool.requires_setting);
      if (kind === undefined) {
        issues.push({
          path: `${at}.requires_setting`,
          message: `${shown(tool.requires_setting)} is not a key declared in config`,
        });
      } else if (kind !== "boolean") {
        issues.push({
          path: `${at}.requires_setting`,
          message: `${shown(tool.requires_setting)} must be declared with kind "boolean" (the tool needs it to read true)`,
        });
      }
    }
  });
  return issues;
}

function parameterIssues(parameters: unknown, at: string): ManifestIssue[] {
  if (!isRecord(parameters) || !Array.isArray(parameters.required)) return [];
  const props = isRecord(parameters.properties) ? parameters.properties : {};
  return parameters.required.flatMap((name, j) =>
    typeof name === "string" && !(name in props)
      ? [{ path: `${at}.required[${j}]`, message: `${shown(name)} is not in properties` }]
      : [],
  );
}

function runtimeIssues(raw: Record<string, unknown>): ManifestIssue[] {
  const tools = Array.isArray(raw.tools) ? raw.tools : [];
  const usesMcp = tools.some((t) => isRecord(t) && t.rail === "mcp");
  if (usesMcp && raw.runtime === undefined) {
    return [{ path: "runtime", message: "is required: some tools use rail mcp, which needs a process to run" }];
  }
  if (!usesMcp && raw.runtime !== undefined && tools.length) {
    return [{ path: "runtime", message: "must be left out: no tool uses rail mcp, so nothing would run it" }];
  }
  return [];
}

function authIssues(raw: Record<string, unknown>): ManifestIssue[] {
  const issues: ManifestIssue[] = [];
  const auth = isRecord(raw.auth) ? raw.auth : undefined;
  if (auth?.type === "oauth2" && raw.health_check === undefined) {
    issues.push({
      path: "health_check",
      message: "is required with oauth2 auth (it confirms the connection and names the account)",
    });
  }
  if (isRecord(raw.health_check)) {
    issues.push(...checkUrl(raw.health_check.url, "health_check.url", false));
    issues.push(...checkHeaders(raw.health_check.headers, "health_check.headers"));
  }
  return issues;
}

function skillIssues(raw: Record<string, unknown>): ManifestIssue[] {
  if (!Array.isArray(raw.skills)) return [];
  const issues: ManifestIssue[] = [];
  const names = new Set<string>();
  raw.skills.forEach((skill, i) => {
    if (!isRecord(skill)) return;
    const at = `skills[${i}]`;
    if (typeof skill.name === "string") {
      // Skills and plugins share the agent's namespace of things it can look up by name.
      if (skill.name === raw.name || (BUNDLED_PLUGINS as readonly string[]).includes(skill.name)) {
        issues.push({
          path: `${at}.name`,
          message: `must differ from plugin names (got ${shown(skill.name)}); try "${skill.name}-guide"`,
        });
      }
      if (names.has(skill.name)) issues.push({ path: `${at}.name`, message: "repeats an earlier skill's name" });
      names.add(skill.name);
    }
    if (typeof skill.path === "string" && !isInsidePath(skill.path)) {
      issues.push({
        path: `${at}.path`,
        message: `must be a relative path inside the plugin, without . or .. (got ${shown(skill.path)})`,
      });
    }
  });
  return issues;
}

function miscIssues(raw: Record<string, unknown>): ManifestIssue[] {
  const issues: ManifestIssue[] = [];
  if (Array.isArray(raw.config)) {
    const keys = new Set<unknown>();
    raw.config.forEach((c, i) => {
      if (!isRecord(c) || typeof c.key !== "string") return;
      if (keys.has(c.key)) issues.push({ path: `config[${i}].key`, message: `repeats ${shown(c.key)}` });
      keys.add(c.key);
    });
  }
  const logo = isRecord(raw.interface) ? raw.interface.logo : undefined;
  if (typeof logo === "string" && !isInsidePath(logo)) {
    issues.push({
      path: "interface.logo",
      message: `must be a relative path inside the plugin, without . or .. (got ${shown(logo)})`,
    });
  }
  return issues;
}

/** A relative, forward-slash path that stays inside the plugin directory. */
export function isInsidePath(path: string): boolean {
  if (!path || path.startsWith("/") || path.includes("\\") || /^[A-Za-z]:/.test(path)) return false;
  return path.split("/").every((seg) => seg !== ".." && seg !== "." && seg !== "");
}

/** "0.1.0-dev" → "0.1.0": pre-release builds count as the release they lead to. */
export function coreVersionOf(version: string): string | undefined {
  return /^(\d+\.\d+\.\d+)/.exec(version)?.[1];
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
