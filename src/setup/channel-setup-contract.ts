import type { ChannelAdapter, ChannelDeps } from "../channels/channel.ts";
import type { Env } from "../config/env.ts";
import type { FermixPaths } from "../config/paths.ts";
import type { SecretStore } from "../config/secret-store.ts";
import type { SecretDeps } from "../config/secrets.ts";
import type { SetupIo } from "./prompt.ts";

/** `fermix setup --channel NAME`'s options. The bot token never comes from the command line. */
export type ChannelSetupFlags = {
  channel: string;
  ownerUserId?: string;
  tokenStdin?: boolean;
  skipTest?: boolean;
  nonInteractive?: boolean;
  /** Signal: the signal-cli account fermix answers as, and where signal-cli is. */
  account?: string;
  cliPath?: string;
  /** WhatsApp: the business number's Phone number ID; the access token then the app secret piped, one a line. */
  phoneNumberId?: string;
  secretsStdin?: boolean;
  /** Slack: socket (Socket Mode, the default) or webhook; its secrets are piped with secretsStdin too. */
  mode?: string;
};

export type ChannelSetupDeps = {
  env: Env;
  paths: FermixPaths;
  io: SetupIo;
  store?: SecretStore;
  secretRun?: SecretDeps["run"];
  /** The channel adapters (the registry's); tests hand in their own. */
  channels?: Record<string, (deps: ChannelDeps) => Promise<ChannelAdapter>>;
  /** How long the token check may take (the adapter bounds its own request too). */
  checkTimeoutMs?: number;
};
