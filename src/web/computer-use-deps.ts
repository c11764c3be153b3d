import {
  type ComputerUseState,
  type ComputerUseStateDeps,
  computerUseState,
} from "../computer-use/computer-use-state.ts";
import type { ConfigWrites } from "./config-writes.ts";

/** The Computer Use card: config.toml's switch and, when it is on, whether this machine's display can be driven. */
export type ComputerUseWeb = {
  view(): Promise<ComputerUseState>;
  /** Writes [fermix_core.computer_use] enabled (comments kept); the notice says what changed. */
  setEnabled(on: boolean): Promise<string>;
};

const TABLE = "fermix_core.computer_use";

export function createComputerUseWeb(writes: ConfigWrites, deps: ComputerUseStateDeps): ComputerUseWeb {
  return {
    // Read fresh each time: the owner fixes DISPLAY or starts Xvfb and reloads the page to see it ready.
    view: async () => computerUseState(await writes.config(), deps),
    async setEnabled(on) {
      const { changed } = await writes.apply(
        TABLE,
        [{ table: TABLE, key: "enabled", value: on }],
        undefined,
        (c) => (c.fermix_core?.computer_use?.enabled ?? false) === on,
      );
      if (!changed) return `computer use: already ${on ? "on" : "off"}`;
      return `computer use: turned ${on ? "on" : "off"}; run fermix restart for the daemon to use it`;
    },
  };
}
