import type { ConversationKey } from "../../memory/messages-contract.ts";

export type BackgroundStatus = "running" | "done" | "failed" | "stopped";

export type BackgroundTask = {
  id: string;
  conversation: ConversationKey;
  /** The command as typed (`/bg`), for /tasks. */
  command: string;
  prompt: string;
  status: BackgroundStatus;
  startedAt: number;
  finishedAt?: number;
};

export type BackgroundStart = {
  conversation: ConversationKey;
  command: string;
  prompt: string;
  /** The work; its signal aborts on /stop. Resolves with what to post. */
  run(signal: AbortSignal): Promise<string>;
  post(text: string): Promise<void>;
};

/** Background work of this process: started by /background, listed by /tasks, stopped by /stop. */
export interface BackgroundTasks {
  start(input: BackgroundStart): { ok: true; id: string } | { ok: false; reason: string };

  /** This conversation's work, oldest first. */
  list(conversation: ConversationKey): BackgroundTask[];

  running(): number;

  /** /stop: aborts every running task; says how many. */
  stopAll(reason?: unknown): number;
}
