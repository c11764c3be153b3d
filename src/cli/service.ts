import { processEnv } from "../config/env.ts";
import type { FermixError } from "../error.ts";
import {
  type InstallReport,
  installService,
  type ServiceStatusReport,
  serviceStatus,
  uninstallService,
} from "../service/install.ts";
import { serviceBinary } from "../service/self.ts";
import type { ServiceScope } from "../service/service-target.ts";
import { describeTarget } from "../service/target.ts";
import type { ParsedArgs } from "./args.ts";
import { defineCommand } from "./command.ts";
import { UsageError } from "./exit.ts";
import { answerQuery } from "./query.ts";

const ARGS = {
  user: { type: "boolean", description: "the per-user service (the default)" },
  system: { type: "boolean", description: "the system-wide service (needs root)" },
  json: { type: "boolean", description: "print the typed JSON envelope" },
} as const;

export default defineCommand({
  meta: {
    name: "service",
    description: "Install, remove or inspect the service that runs the daemon",
    details: "The service (systemd on Linux, launchd on macOS) runs the daemon at login or boot.",
  },
  default: "status",
  subCommands: {
    install: defineCommand({
      meta: {
        name: "install",
        description: "Install the service, enable and start it; rewrite it when it drifted",
        examples: ["fermix service install", "sudo fermix service install --system"],
      },
      args: ARGS,
      run: ({ args }) => {
        const scope = scopeOf(args);
        return answerQuery({
          json: args.json === true,
          query: () => installService({ scope, env: processEnv(), binary: serviceBinary() }),
          render: renderInstall,
        });
      },
    }),
    uninstall: defineCommand({
      meta: { name: "uninstall", description: "Stop and remove the service" },
      args: ARGS,
      run: ({ args }) => {
        const scope = scopeOf(args);
        return answerQuery({
          json: args.json === true,
          query: () => uninstallService({ scope, env: processEnv() }),
          render: (r) =>
            r.removed
              ? `fermix: stopped and removed the ${describeTarget(r)} (${r.path})\n`
              : `fermix: no ${describeTarget(r)} is installed (${r.path})\n`,
        });
      },
    }),
    status: defineCommand({
      meta: { name: "status", description: "Show whether the service is installed, up to date and running" },
      args: ARGS,
      run: ({ args }) => {
        const scope = scopeOf(args);
        return answerQuery({
          json: args.json === true,
          query: () => serviceStatus({ scope, env: processEnv(), binary: binaryIfBuilt() }),
          render: renderStatus,
        });
      },
    }),
  },
});

function scopeOf(args: ParsedArgs): ServiceScope {
  if (args.user === true && args.system === true) throw UsageError("service: choose one of --user and --system");
  return args.system === true ? "system" : "user";
}

function binaryIfBuilt(): string | undefined {
  try {
    return serviceBinary();
  } catch (err) {
    if ((err as FermixError).code === "from_source") return undefined;
    throw err;
  }
}

/** systemd stops a user's services when their last session ends, unless lingering is on for them. */
const LINGER_HINT =
  "fermix: a user service stops when you log out; to keep fermix running, run: sudo loginctl enable-linger $USER\n";

function renderInstall(r: InstallReport): string {
  const what = describeTarget(r);
  if (r.action === "created") {
    const linger = r.kind === "systemd" && r.scope === "user" ? LINGER_HINT : "";
    return `fermix: installed the ${what} at ${r.path}; it is enabled and started\n${linger}`;
  }
  if (r.action === "unchanged") {
    return `fermix: the ${what} at ${r.path} is already up to date; it is enabled and started\n`;
  }
  const diff = r.diff.map((line) => `  ${line}\n`).join("");
  return `fermix: rewrote the ${what} at ${r.path}, which had drifted:\n${diff}fermix: reloaded and restarted it\n`;
}

function renderStatus(s: ServiceStatusReport): string {
  const what = describeTarget(s);
  const flag = s.scope === "system" ? " --system" : "";
  const lines: string[] = [];
  if (!s.installed) {
    lines.push(`service: no ${what} installed (${s.path})`, `install it with: fermix service install${flag}`);
  } else {
    lines.push(`service: ${what} at ${s.path}`);
    if (!s.serves_home) lines.push(`warning: this unit runs another FERMIX_HOME than ${s.home}`);
    if (s.drift === "same") lines.push("unit: up to date");
    else if (s.drift === "unchecked") lines.push("unit: not compared (running from source, not a built binary)");
    else {
      lines.push(`unit: drifted from what this binary writes; \`fermix service install${flag}\` rewrites it:`);
      lines.push(...s.diff.map((line) => `  ${line}`));
    }
    if (s.manager) {
      const error = "error" in s.manager ? ` (${s.manager.error})` : "";
      lines.push(`manager: ${s.manager.state}${error}`);
    }
  }
  lines.push(
    s.daemon.running ? `daemon: running (pid ${s.daemon.pid}, version ${s.daemon.version})` : "daemon: not running",
  );
  return `${lines.join("\n")}\n`;
}
