import type { ServiceTarget } from "./service-target.ts";

/** What the manager says about the service right now. */
export type ServiceState = { active: boolean; state: string; pid?: number };

/**
 * The service manager behind one unit: systemd (`systemctl [--user]`) or launchd (`launchctl`), run as
 * child processes. Every method resolves once the manager has answered and throws a FermixError
 * (`service_command_failed`) naming the command, its exit and its message when it refuses.
 */
export interface ServiceManager {
  readonly target: ServiceTarget;
  /** Makes the manager re-read unit files (systemd daemon-reload; launchd reads a plist at bootstrap). */
  reload(): Promise<void>;
  /** Enabled at boot/login and started now. */
  enable(): Promise<void>;
  /** Stopped and no longer started at boot/login. */
  disable(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops and starts, picking up a rewritten unit. */
  restart(): Promise<void>;
  state(): Promise<ServiceState>;
}
