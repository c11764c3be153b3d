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
import { describeTarget, type ServiceScope } from "../service/target.ts";
import { parseStrict } from "./args.ts";
import { defineCliCommand } from "./command.ts";
import { UsageError } from "./exit.ts";
import { answerQuery } from "./query.ts";

const command = defineCliCommand({
  meta: {
    name: "service",
    usage: "service install|uninstall|status [--user|--system] [--json]",
    description:
      "Install, remove or inspect the fermix service (systemd on Linux, launchd on macOS) that runs the daemon at login or boot.",
  },
  options: {
    user: { type: "boolean", description: "the per-user service (the default)" },
    system: { type: "boolean", description: "the system-wide service (needs root)" },
    json: { type: "boolean", description: "print the typed JSON envelope" },
  },
  run(rawArgs) {
    const args = parseStrict(rawArgs, command.options, "service");
    const [sub, extra] = args._;
    if (extra !== undefined) throw UsageError(`service: unexpected argument "${extra}"`);
    if (args.user === true && args.system === true) throw UsageError("service: choose one of --user and --system");
    const scope: ServiceScope = args.system === true ? "system" : "user";
    const env = processEnv();
    const json = args.json === true;
    switch (sub ?? "status") {
      case "install":
        return answerQuery({
          json,
          query: () => installService({ scope, env, binary: serviceBinary() }),
          render: renderInstall,
        });
      case "uninstall":
        return answerQuery({
          json,
          query: () => uninstallService({ scope, env }),
          render: (r) =>
            r.removed
              ? `fermix: stopped and removed the ${describeTarget(r)} (${r.path})\n`
              : `fermix: no ${describeTarget(r)} is installed (${r.path})\n`,
        });
      case "status":
        return answerQuery({
          json,
          query: () => serviceStatus({ scope, env, binary: binaryIfBuilt() }),
          render: renderStatus,
        });
      default:
        throw UsageError(`service: unknown subcommand "${sub}" (install, uninstall, status)`);
    }
  },
});

export default command;

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
