import type { ServiceScope } from "./service-target.ts";

export type SystemdUnitInput = {
  binary: string;
  scope: ServiceScope;
  environment: ReadonlyArray<readonly [string, string]>;
  /** A system unit's login account (User=); systemd then sets HOME, USER and SHELL for it. */
  user?: string;
};

/**
 * A systemd unit for `fermix run`. Pure: the same input always gives the same bytes, which is what drift
 * detection compares against.
 */
export function renderSystemdUnit(input: SystemdUnitInput): string {
  const lines = [
    "# Written by `fermix service install`; `fermix setup` rewrites it when it drifts from what fermix writes.",
    "[Unit]",
    "Description=fermix personal AI agent",
    "After=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    ...(input.user ? [`User=${input.user}`] : []),
    `ExecStart=${execWord(input.binary)} run`,
    "Restart=on-failure",
    "RestartSec=5",
    "LimitNOFILE=65536",
    ...input.environment.map(([name, value]) => systemdEnvironmentLine(name, value)),
    "",
    "[Install]",
    `WantedBy=${input.scope === "system" ? "multi-user.target" : "default.target"}`,
  ];
  return `${lines.join("\n")}\n`;
}

/** `Environment=NAME=value`, quoted whole when the value holds anything systemd would split or unescape. */
export function systemdEnvironmentLine(name: string, value: string): string {
  // Specifiers (%h, %u …) are expanded in Environment= too, so a literal % is doubled.
  const assignment = `${name}=${value.replaceAll("%", "%%")}`;
  return `Environment=${SAFE.test(assignment) ? assignment : quote(assignment)}`;
}

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** ExecStart's first word: also `$` is special there (variable expansion), written `$$`. */
function execWord(path: string): string {
  const escaped = path.replaceAll("%", "%%").replaceAll("$", "$$$$");
  return SAFE.test(escaped) ? escaped : quote(escaped);
}

/** systemd's double-quoted word: C-style escapes for backslash, quote and control characters. */
function quote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (ch === "\\" || ch === '"') out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}
