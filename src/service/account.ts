import { existsSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import type { Env } from "../config/env.ts";
import { FermixError } from "../error.ts";

/** The login account a system service runs fermix as: its name and home directory. */
export type ServiceAccount = { user: string; home: string };

export const NoServiceAccount = (message: string) => new FermixError("service_account", message);

/**
 * Whose agent a system service is. Never root's: the agent runs shell commands and holds the owner's
 * accounts, so a root daemon would hand both to anything that talks it into a command. Under sudo that is
 * the account that ran sudo (SUDO_USER); otherwise the account running this command.
 */
export function systemServiceAccount(
  env: Env,
  deps: { uid?: number; currentUser?: () => string; homeOf?: (user: string) => string | undefined } = {},
): ServiceAccount {
  const uid = deps.uid ?? process.getuid?.() ?? 0;
  const sudoUser = env.SUDO_USER && env.SUDO_USER !== "root" ? env.SUDO_USER : undefined;
  const user = sudoUser ?? (uid !== 0 ? (deps.currentUser ?? (() => userInfo().username))() : undefined);
  if (!user) {
    throw NoServiceAccount(
      "the system service runs fermix as a login account, never as root: run `sudo fermix service install --system` from that account (or install the user service without --system)",
    );
  }
  const home = sudoUser ? (deps.homeOf ?? passwdHome)(user) : env.HOME;
  if (!home) throw NoServiceAccount(`cannot find the home directory of ${user} in /etc/passwd`);
  return { user, home };
}

/**
 * The home directory field of `user`'s /etc/passwd line; on macOS, whose login accounts live in Directory
 * Services rather than /etc/passwd, their standard /Users/<user> when it exists.
 */
function passwdHome(user: string): string | undefined {
  try {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${user}:`));
    const home = line?.split(":")[5];
    if (home) return home;
  } catch {}
  const mac = `/Users/${user}`;
  return process.platform === "darwin" && existsSync(mac) ? mac : undefined;
}
