export type LaunchdPlistInput = {
  label: string;
  binary: string;
  environment: ReadonlyArray<readonly [string, string]>;
  /** Where launchd sends the daemon's stdout and stderr (the daemon's own log is written by itself). */
  outputPath: string;
  /** A system daemon's login account (UserName). */
  user?: string;
};

/**
 * A launchd job for `fermix run`. KeepAlive restarts it whenever it exits, which is why stopping goes
 * through `launchctl bootout` rather than a signal. Pure, like the systemd renderer.
 */
export function renderLaunchdPlist(input: LaunchdPlistInput): string {
  const env = input.environment.flatMap(([name, value]) => [
    `\t\t<key>${xml(name)}</key>`,
    `\t\t<string>${xml(value)}</string>`,
  ]);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    "<!-- Written by `fermix service install`; `fermix setup` rewrites it when it drifts from what fermix writes. -->",
    '<plist version="1.0">',
    "<dict>",
    "\t<key>Label</key>",
    `\t<string>${xml(input.label)}</string>`,
    "\t<key>ProgramArguments</key>",
    "\t<array>",
    `\t\t<string>${xml(input.binary)}</string>`,
    "\t\t<string>run</string>",
    "\t</array>",
    ...(input.user ? ["\t<key>UserName</key>", `\t<string>${xml(input.user)}</string>`] : []),
    "\t<key>RunAtLoad</key>",
    "\t<true/>",
    "\t<key>KeepAlive</key>",
    "\t<true/>",
    "\t<key>EnvironmentVariables</key>",
    "\t<dict>",
    ...env,
    "\t</dict>",
    "\t<key>StandardOutPath</key>",
    `\t<string>${xml(input.outputPath)}</string>`,
    "\t<key>StandardErrorPath</key>",
    `\t<string>${xml(input.outputPath)}</string>`,
    "</dict>",
    "</plist>",
  ];
  return `${lines.join("\n")}\n`;
}

/** The `<key>NAME</key><string>value</string>` pair as this renderer writes it (for reading a unit back). */
export function plistEnvironmentEntry(name: string, value: string): string {
  return `\t\t<key>${xml(name)}</key>\n\t\t<string>${xml(value)}</string>`;
}

export function xml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}
