import { isAbsolute } from "node:path";
import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";
import { SecretRef } from "./secret-ref.ts";

/** A plugin's own settings: the UPPER_SNAKE keys its manifest declares, as strings or booleans. */
const PluginSettings = lazySchema(() =>
  v.record(
    v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]*$/, "an UPPER_SNAKE config key declared by the plugin")),
    v.union([v.string(), v.boolean()], "a quoted string or true/false"),
  ),
);

/**
 * `dev_local`: one folder, or a list of folders, whose immediate subfolders are plugins loaded in place
 * (the plugins spec, "For plugin authors"). Absolute paths only: neither a relative path nor `~/` is
 * resolved, so src/plugins/dev-local.ts needs no working directory or HOME and the CLI, doctor and a daemon
 * started by a service manager all read the same folder.
 */
const DevLocal = lazySchema(() =>
  v.pipe(
    v.union(
      [v.string(), v.array(v.string())],
      "an absolute path to a folder of plugin folders, or a list of such paths",
    ),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const relative = (typeof dataset.value === "string" ? [dataset.value] : dataset.value).find(
        (p) => !isAbsolute(p),
      );
      if (relative !== undefined) {
        addIssue({
          message: "an absolute path (relative paths and ~/ are not expanded)",
          received: JSON.stringify(relative),
        });
      }
    }),
  ),
);

/** [fermix_core.plugins]: which plugins run and how their servers are discovered; other keys are plugins' settings. */
export const PluginsSection = lazySchema(() =>
  v.objectWithRest(
    {
      enabled: v.optional(v.array(v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,63}$/, "a plugin name")))),
      /** Folders whose subfolders are plugins loaded in place, for plugin authors; read through devLocalRoots. */
      dev_local: v.optional(DevLocal),
      /** One discovery attempt's deadline for an MCP-rail plugin's server (default 10). */
      discovery_timeout_seconds: v.optional(
        v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(300), v.description("whole seconds, 1 to 300")),
      ),
      /** Discovery attempts before a server is quarantined (default 5). */
      discovery_attempts: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10))),
    },
    PluginSettings,
  ),
);

/** [fermix_core.plugin_secrets]: each api_key plugin's key, by plugin name. */
export const PluginSecretsSection = lazySchema(() => v.record(v.string(), SecretRef));

/** [fermix_core.oauth.<provider>]: the owner's own OAuth app, for the plugins that sign in with that provider. */
export const OAuthSection = lazySchema(() =>
  v.record(v.string(), v.strictObject({ client_id: v.optional(v.string()), client_secret: v.optional(SecretRef) })),
);
