import { describe, expect, test } from "bun:test";
import { delegatedSurface } from "../../src/agent/subagents.ts";
import type { TurnOpening } from "../../src/agent/turn-addition.ts";
import { fileRead } from "../../src/capabilities/builtins/file-read.ts";
import type { Caller } from "../../src/capabilities/caller.ts";
import { mayUse } from "../../src/capabilities/policy.ts";
import type { AnyTool } from "../../src/capabilities/tool.ts";
import { createComputerUse } from "../../src/computer-use/computer-use.ts";
import { type ComputerUseDeps, computerUseSubsystem } from "../../src/computer-use/computer-use-subsystem.ts";
import type { Config } from "../../src/config/schema.ts";
import { FermixError } from "../../src/error.ts";
import { createLog } from "../../src/observability/log.ts";
import { fakeDesktop } from "../fake/desktop-driver.ts";

/*
 * Who is offered computer_use: the owner in an attended turn, while it is enabled and the display is open. Never a
 * guest, a scheduled job, an unattended run or a sub-agent (a skill run as a sub-agent is one), and nobody while
 * the display cannot be driven.
 */

const ENABLED = { fermix_core: { computer_use: { enabled: true } } } as Config;
const OWNER: Caller = { trust: "operator", local: true, attended: true };
const log = createLog({ file: "/dev/null" });

function part(config: Config = ENABLED, opts: { display?: string; fail?: string } = {}) {
  const desk = fakeDesktop({});
  const deps: ComputerUseDeps = { liveConfig: () => config, env: { DISPLAY: opts.display ?? ":42" }, log };
  const opened: string[] = [];
  const api = createComputerUse({
    config: () => config,
    env: deps.env,
    log,
    platform: "linux",
    openDriver: async (display) => {
      opened.push(display);
      if (opts.fail) throw new FermixError("computer_use_display_unreachable", opts.fail);
      return desk.driver;
    },
  });
  const offered = async (opening: Partial<TurnOpening>): Promise<string[]> => {
    const full: TurnOpening = { key: { channel: "cli", chat: "s" }, caller: OWNER, config, job: false, ...opening };
    if (!computerUseSubsystem.joinsTurn!(full, deps, true)) return [];
    const added = await computerUseSubsystem.turn!(api, full, deps);
    // What the turn then lets this caller see (agent/turn.ts filters extra tools with mayUse).
    return (added?.tools?.() ?? []).filter((t) => mayUse(t, full.caller)).map((t) => t.name);
  };
  return { api, deps, offered, opened };
}

describe("computer_use's surface", () => {
  test("the owner in an attended turn gets it, once the display is open", async () => {
    const { offered, opened, api } = part();
    expect(await offered({})).toEqual(["computer_use"]);
    expect(opened).toEqual([":42"]);
    expect(api.status()).toEqual({ state: "running", detail: "display :42" });
  });

  test("a guest, a scheduled job and an unattended run never see it", async () => {
    const { offered, api } = part();
    expect(await offered({ caller: { trust: "guest", local: false, attended: true } })).toEqual([]);
    // And were it handed to one, the policy refuses it: a guest gets read-only chat, a job nobody watches.
    const tool = (await api.toolFor(ENABLED)) as AnyTool;
    expect(mayUse(tool, { trust: "guest", local: false, attended: true })).toBe(false);
    expect(mayUse(tool, { ...OWNER, attended: false, jobId: "job_1" })).toBe(false);
    expect(await offered({ job: true, caller: { ...OWNER, attended: false, jobId: "job_1" } })).toEqual([]);
    expect(await offered({ caller: { ...OWNER, attended: false } })).toEqual([]);
  });

  test("a sub-agent (and so a skill run as one) never inherits it, and could not call it", async () => {
    const { api } = part();
    const tool = (await api.toolFor(ENABLED)) as AnyTool;
    expect(delegatedSurface([fileRead, tool]).map((t) => t.name)).toEqual(["file_read"]);
    // Even named in a task's allowed_tools.
    expect(delegatedSurface([fileRead, tool], ["computer_use"])).toEqual([]);
    // A sub-agent's caller is unattended: dispatch refuses it like an unknown tool.
    expect(mayUse(tool, { ...OWNER, attended: false })).toBe(false);
  });

  test("disabled, or with no display to drive, nobody is offered it and the status says why", async () => {
    const off = part({ fermix_core: { computer_use: { enabled: false } } } as Config);
    expect(await off.offered({})).toEqual([]);
    const broken = part(ENABLED, { fail: "cannot connect to the X display :42" });
    expect(await broken.offered({})).toEqual([]);
    expect(broken.api.status()).toEqual({ state: "degraded", detail: "cannot connect to the X display :42" });
    const noDisplay = createComputerUse({ config: () => ENABLED, env: {}, log, platform: "linux" });
    expect(await noDisplay.toolFor(ENABLED)).toBeUndefined();
    expect(noDisplay.status().detail).toStartWith("no DISPLAY");
  });

  test("[fermix_core.computer_use] display = N opens :N rather than $DISPLAY", async () => {
    const config = { fermix_core: { computer_use: { enabled: true, display: 7 } } } as Config;
    const { offered, opened } = part(config);
    expect(await offered({})).toEqual(["computer_use"]);
    expect(opened).toEqual([":7"]);
  });
});
