import { FermixError } from "../../error.ts";
import { newId } from "../../ids.ts";
import type { ConversationKey } from "../../memory/messages-contract.ts";
import type {
  BackgroundStart,
  BackgroundStatus,
  BackgroundTask,
  BackgroundTasks,
} from "./background-tasks-contract.ts";

/** The earlier product's bounds: 8 running at once, the last 50 finished kept for /tasks. */
export const BACKGROUND_LIMIT = 8;
export const BACKGROUND_KEPT = 50;

/**
 * Background work of this process (one per app, across chats): started by /background, listed by /tasks, stopped
 * by /stop. The result is posted to the chat it came from; stopped work posts nothing (/stop has said so).
 */
export function createBackgroundTasks(deps: {
  now: () => number;
  onSettled?: (task: BackgroundTask) => void;
}): BackgroundTasks {
  const tasks: BackgroundTask[] = [];
  const controllers = new Map<string, AbortController>();

  const prune = () => {
    const finished = tasks.filter((t) => t.status !== "running");
    for (const old of finished.slice(0, Math.max(0, finished.length - BACKGROUND_KEPT))) {
      tasks.splice(tasks.indexOf(old), 1);
    }
  };

  const settle = (task: BackgroundTask, status: BackgroundStatus, message?: string) => {
    task.status = status;
    task.finishedAt = deps.now();
    controllers.delete(task.id);
    prune();
    return message;
  };

  return {
    start(input: BackgroundStart): { ok: true; id: string } | { ok: false; reason: string } {
      if (controllers.size >= BACKGROUND_LIMIT) {
        return {
          ok: false,
          reason: `Too many background tasks already running (limit ${BACKGROUND_LIMIT}). Wait for one to finish (/tasks shows them) or /stop them.`,
        };
      }
      const task: BackgroundTask = {
        id: newId("bg", 3),
        conversation: input.conversation,
        command: input.command,
        prompt: input.prompt,
        status: "running",
        startedAt: deps.now(),
      };
      const controller = new AbortController();
      tasks.push(task);
      controllers.set(task.id, controller);
      void input
        .run(controller.signal)
        .then(
          (result) =>
            controller.signal.aborted
              ? settle(task, "stopped")
              : settle(task, "done", `Background work ${task.id} done:\n${result}`),
          (err: unknown) =>
            controller.signal.aborted
              ? settle(task, "stopped")
              : settle(task, "failed", `Background work ${task.id} failed: ${describe(err)}`),
        )
        .then((message) => (message ? input.post(message) : undefined))
        .catch(() => {})
        .finally(() => deps.onSettled?.(task));
      return { ok: true, id: task.id };
    },

    list(conversation: ConversationKey): BackgroundTask[] {
      return tasks.filter((t) => sameConversation(t.conversation, conversation));
    },

    running: () => controllers.size,

    stopAll(reason?: unknown): number {
      // Work already told to stop (and not yet unwound) is not counted twice.
      const running = [...controllers.values()].filter((c) => !c.signal.aborted);
      for (const controller of running) controller.abort(reason);
      return running.length;
    },
  };
}

function describe(err: unknown): string {
  if (err instanceof FermixError || err instanceof Error) return err.message;
  return String(err);
}

function sameConversation(a: ConversationKey, b: ConversationKey): boolean {
  return a.channel === b.channel && a.chat === b.chat && (a.thread ?? "") === (b.thread ?? "");
}
