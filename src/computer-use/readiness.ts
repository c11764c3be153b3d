import { isFermixError } from "../error.ts";
import type { DriverReadiness, OpenDriver } from "./driver-contract.ts";

const SECTION = "[fermix_core.computer_use]";

/**
 * Whether computer use can drive a desktop here, and if not the one thing to do about it — what `fermix doctor`,
 * the setup page's Computer Use card and `fermix capabilities` show. Ready means a real connection was opened
 * (and XTest found), not merely that DISPLAY is set. `display` is the config's display number; without it the
 * daemon's own $DISPLAY is used.
 */
export async function driverReadiness(input: {
  env: Record<string, string | undefined>;
  display?: number;
  platform?: string;
  open?: OpenDriver;
}): Promise<DriverReadiness> {
  const platform = input.platform ?? process.platform;
  if (platform === "darwin") {
    return unavailable(
      "this build has no macOS driver",
      "use fermix on Linux x86_64 with an X11 display (or XWayland) for computer use",
    );
  }
  if (platform !== "linux") {
    return unavailable(`this build has no ${platform} driver`, "use fermix on Linux x86_64 with an X11 display");
  }
  const wayland = input.env.XDG_SESSION_TYPE === "wayland" || Boolean(input.env.WAYLAND_DISPLAY);
  const display = input.display !== undefined ? `:${input.display}` : input.env.DISPLAY?.trim() || undefined;
  if (!display) {
    if (wayland) {
      return unavailable(
        "the session is Wayland and no X display is reachable (DISPLAY is not set, so there is no XWayland)",
        `enable XWayland in your compositor and start the daemon with DISPLAY set, or set display = N in ${SECTION}`,
      );
    }
    return unavailable(
      `no X display: DISPLAY is not set and ${SECTION} has no display`,
      `set display = N in ${SECTION} (e.g. 99 for an Xvfb on :99), or start the daemon from a desktop session with DISPLAY set`,
    );
  }
  const open = input.open ?? (await import("./x11/driver.ts")).openX11Driver;
  try {
    const driver = await open(display);
    const ready: DriverReadiness = { state: "ready", display, width: driver.width, height: driver.height };
    await driver.close().catch(() => undefined);
    return ready;
  } catch (err) {
    return whyNot(err, display, wayland);
  }
}

function whyNot(err: unknown, display: string, wayland: boolean): DriverReadiness {
  const message = err instanceof Error ? err.message : String(err);
  if (isFermixError(err) && err.code === "computer_use_no_xtest") {
    return unavailable(
      message,
      "use an X server with the XTEST extension (Xorg, Xvfb and XWayland have it unless started with -extension XTEST)",
    );
  }
  if (wayland) {
    return unavailable(
      `the session is Wayland and the X display ${display} is not reachable (${message})`,
      `enable XWayland in your compositor, or point display = N in ${SECTION} at a running X server`,
    );
  }
  return unavailable(
    message,
    `start an X server on ${display} (or set display = N in ${SECTION} to one that runs) and check that the daemon's user may connect to it (xhost/XAUTHORITY)`,
  );
}

function unavailable(reason: string, fix: string): DriverReadiness {
  return { state: "unavailable", reason, fix };
}
