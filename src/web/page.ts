import type { DoctorReport } from "../doctor/run-doctor.ts";
import type { Status } from "../protocol/schemas.ts";
import type { SandboxStatus } from "../sandbox/types.ts";
import type { ChannelsWeb } from "./channel-deps.ts";
import type { ComputerUseWeb } from "./computer-use-deps.ts";
import type { RestartControl } from "./daemon-restart.ts";
import type { HarnessWeb } from "./harness-deps.ts";
import type { Html } from "./html.ts";
import type { MediaWeb } from "./media-deps.ts";
import type { MemoryWeb } from "./memory-deps.ts";
import type { PluginsWeb } from "./plugin-deps.ts";
import type { ProviderSignInWeb } from "./provider-sign-in.ts";
import type { SearchWeb } from "./search-deps.ts";
import type { SetupActions } from "./setup-actions.ts";
import type { TranscriptionWeb } from "./transcription-deps.ts";
import type { UsageWeb } from "./usage-deps.ts";

/** One recent scheduled-job run, as the dashboard lists it (no prompt or output: those stay in `fermix jobs`). */
export type RunSummary = { job: string; runId: string; status: string; at: number; error: string | null };

/** What the pages read, handed in by the daemon (tests hand in fakes). */
export type WebDeps = {
  status(): Promise<Status>;
  /** The doctor's rows, redacted as `fermix doctor` prints them. */
  doctor(): Promise<DoctorReport>;
  recentRuns(limit: number): Promise<RunSummary[]>;
  /** config.toml as it is now, and the writes of the Providers and Personalization pages (through setup's code). */
  setup: SetupActions;
  /** The Plugins page: the catalog with live states, and install / enable / disable / an api_key (the CLI's code). */
  plugins: PluginsWeb;
  /** The Plugins page's Computer Use card: on/off in config.toml and the display's readiness (absent: no card). */
  computerUse?: ComputerUseWeb;
  /** The Channels page: each channel's config and running state, save (tested first) and test (setup's code). */
  channels: ChannelsWeb;
  /** Voice notes, Search, Media, Coding agents: their config.toml sections and keys (config edit + secret store). */
  transcription: TranscriptionWeb;
  search: SearchWeb;
  media: MediaWeb;
  harness: HarnessWeb;
  /** The Sandbox page (read-only): the sandbox as config.toml says now. */
  sandbox: { status(): Promise<SandboxStatus> };
  /** The Memory page: review now, the profile files' revisions, restore. */
  memory: MemoryWeb;
  /** Apply & restart (pages/restart.ts); absent where nothing can restart the daemon. */
  restart?: RestartControl;
  /** The provider panes' subscription sign-ins (Codex, Claude, Grok), through `fermix auth login`'s code. */
  signIn?: ProviderSignInWeb;
  /** The Usage page and the dashboard's spend line: the usage ledger in memory.db (absent: no ledger here). */
  usage?: UsageWeb;
};

/** What a page's form post leads to: back to a page with a notice (post/redirect/get), or an error on the page. */
export type FormOutcome =
  | {
      ok: true;
      notice: string;
      redirect?: string;
      /** Another site (an OAuth authorize URL): 303 there, no notice. */
      location?: string;
    }
  | { ok: false; error: string };

/** What a page renders with: the session's form token for its forms, and the notice or error of the last post. */
export type RenderContext = { csrf: string; notice?: string; error?: string; query: URLSearchParams };

/**
 * One page of the setup site: its path, its nav title, its body (the frame is html.ts's layout), and, for a page
 * with forms, what a POST to its path does. Every form carries `csrf` (the server checks it before `submit`).
 */
export type Page = {
  path: string;
  title: string;
  render(deps: WebDeps, ctx: RenderContext): Promise<Html>;
  submit?(form: URLSearchParams, deps: WebDeps): Promise<FormOutcome>;
  /** Other sites a form here may be redirected to (OAuth's Connect): added to the page's CSP form-action. */
  formTargets?(deps: WebDeps): string[];
  /** The inline scripts the page may run, by their CSP hashes ('sha256-…'); they may fetch from our origin. */
  scriptHashes?: readonly string[];
};

export function definePage(page: Page): Page {
  return page;
}
