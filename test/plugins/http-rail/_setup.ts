/** Shared by the http-rail tests: the real catalog manifests, and a door whose public test addresses reach fakes. */
import { readFileSync } from "node:fs";
import * as v from "valibot";
import type { HttpRailPlugin } from "../../../src/plugins/http-rail/call-tool.ts";
import { Manifest, type ManifestTool } from "../../../src/plugins/manifest/schema.ts";
import { createLoopbackDoor } from "../../net/loopback-door.ts";

export const SLACK_IP = "54.192.10.20";
export const GITHUB_IP = "140.82.112.6";
export const GOOGLE_IP = "142.250.64.10";

export const NAMES = {
  "slack.com": [SLACK_IP],
  "api.github.com": [GITHUB_IP],
  "gmail.googleapis.com": [GOOGLE_IP],
  "sneaky.example.com": ["10.0.0.5"],
};

export function catalogManifest(name: string): Manifest {
  const path = new URL(`../../../catalog/plugins/${name}/plugin.json`, import.meta.url);
  return v.parse(Manifest, JSON.parse(readFileSync(path, "utf8")));
}

export function catalogTool(plugin: string, tool: string): ManifestTool {
  const found = catalogManifest(plugin).tools.find((t) => t.name === tool);
  if (!found) throw new Error(`no tool ${tool} in ${plugin}`);
  return found;
}

/** The plugin half of callHttpTool's input, as the registry would pass it from the manifest. */
export function pluginOf(name: string): HttpRailPlugin {
  const m = catalogManifest(name);
  return { name: m.name, auth: m.auth };
}

/** A door that routes each fake's public address to its loopback origin. */
export function door(routes: Record<string, string>) {
  return createLoopbackDoor({ names: NAMES, routes });
}
