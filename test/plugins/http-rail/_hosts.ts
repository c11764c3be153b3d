/**
 * Public test addresses for the hosts of the catalog plugins that _setup.ts does not cover. They are real public
 * addresses (never dialled: the door routes them to loopback fakes), so the SSRF floor stays on in these tests.
 */
import { createLoopbackDoor } from "../../net/loopback-door.ts";
import { NAMES } from "./_setup.ts";

export const NOTION_IP = "208.103.161.1";
export const X_IP = "104.244.42.66";
export const DISCORD_IP = "162.159.128.233";
export const AGENTMAIL_IP = "3.33.152.147";
export const GOOGLEAPIS_IP = "142.250.80.74";

export const MORE_NAMES = {
  "api.notion.com": [NOTION_IP],
  "api.x.com": [X_IP],
  "discord.com": [DISCORD_IP],
  "api.agentmail.to": [AGENTMAIL_IP],
  "www.googleapis.com": [GOOGLEAPIS_IP],
};

/** Like _setup's door, with the new hosts resolvable too. */
export function hostDoor(routes: Record<string, string>) {
  return createLoopbackDoor({ names: { ...NAMES, ...MORE_NAMES }, routes });
}
