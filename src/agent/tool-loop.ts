import { unwrapToolCall } from "../capabilities/deferral/unwrap.ts";
import type { Registry, ToolOutcome } from "../capabilities/registry-contract.ts";
import type { ToolContext } from "../capabilities/tool.ts";
import { defineError } from "../error.ts";
import { type RouterDeps, routeModelCall } from "../providers/router.ts";
import type { Route } from "../providers/routes.ts";
import type {
  AssistantMessage,
  ImagePart,
  JsonSchema,
  Message,
  ProviderFailure,
  StopReason,
  ToolCallPart,
  ToolResultMessage,
  ToolSpec,
  Usage,
} from "../providers/types.ts";
import { digestOldToolResults } from "./compaction.ts";
import { createLoopDetector, LOOP_ABORT_AT, LOOP_WARN_AT } from "./loop-detector.ts";
import { tracedRouter, traceToolExec } from "./loop-traces.ts";
import { showToolImages } from "./tool-images.ts";

export const LoopDetected = defineError("loop_detected");
export const IterationLimit = defineError("iteration_limit");
export const DEFAULT_ITERATION_LIMIT = 100;

export type ToolExecution = { name: string; durationMs: number; ok: boolean };

export type LoopInput = {
  routes: Route[];
  /** A function when the prompt can change between model calls (tools that appear mid-turn). */
  system: string | (() => string);
  /** The conversation so far, ending with the new user message. */
  messages: Message[];
  tools: ToolSpec[] | (() => ToolSpec[]);
  registry: Registry;
  toolContext: ToolContext;
  router: RouterDeps;
  signal?: AbortSignal;
  iterationLimit?: number;
  /** Past this many estimated tokens, older tool results are sent as digests (the full ones are still committed). */
  digestAboveTokens?: number;
  onText?: (delta: string) => void;
  /**
   * The model's text item ended in tool calls: what `onText` gave since the last call is a finished thought (a
   * chat's block streaming sends it as its own message while the tools run). Not called for the final answer.
   */
  onItemEnd?: () => void;
  /** A part of the model's reasoning summary, whole (display only: it joins neither the answer nor the history). */
  onReasoningSummary?: (text: string) => void;
  /** Before a tool runs (a job's inactivity watchdog pauses while one does). */
  onToolStart?: (name: string) => void;
  onToolExecution?: (execution: ToolExecution) => void;
  /** After each model call that reported its token usage. */
  onUsage?: (usage: Usage) => void;
  /** The final answer's JSON Schema (`ask --schema`), sent with every model call of the loop. */
  schema?: JsonSchema;
  /**
   * Before each model call, the first included: throws to end the turn there (a budget that was reached). The
   * call in flight always finishes; the loop stops before the next one.
   */
  beforeModelCall?: (iteration: number) => void;
};

export type LoopResult =
  /** `truncated`: the final answer stopped at the model's output limit (a cut answer is never silent). */
  | { ok: true; text: string; added: Message[]; provider: string; model: string; truncated?: true }
  | { ok: false; failure: ProviderFailure; afterOutput: boolean; provider: string };

/**
 * The model/tool loop: call the model; run the tools it asks for (reads in parallel, the rest in
 * order); hand the results back; repeat until it answers without tools. Failover is possible only on
 * the first call — after that the loop stays on the route that started it.
 */
export async function runToolLoop(input: LoopInput): Promise<LoopResult> {
  // Traces follow the context: a subagent's context carries its own session id.
  const trace = input.toolContext.trace;
  const limit = input.iterationLimit ?? DEFAULT_ITERATION_LIMIT;
  const detector = createLoopDetector();
  const messages = [...input.messages];
  const added: Message[] = [];
  let routes = input.routes;
  let provider = routes[0]!.descriptor.id;
  let model = routes[0]!.model;
  let shownText = false;

  for (let iteration = 1; iteration <= limit; iteration++) {
    input.beforeModelCall?.(iteration);
    const reply: AssistantMessage = { role: "assistant", content: [] };
    const calls: ToolCallPart[] = [];
    let text = "";
    let failure: ProviderFailure | undefined;
    let stopReason: StopReason | undefined;
    const sent = input.digestAboveTokens ? digestOldToolResults(messages, input.digestAboveTokens) : messages;
    const system = typeof input.system === "function" ? input.system() : input.system;
    const tools = typeof input.tools === "function" ? input.tools() : input.tools;
    const call = {
      request: { system, messages: sent, tools: tools.length ? tools : undefined, schema: input.schema },
      signal: input.signal,
      firstCall: iteration === 1,
    };
    const router = tracedRouter(input.router, trace, () => ({ request: call.request, text, calls }));
    for await (const event of routeModelCall(routes, call, router)) {
      if (event.type === "route") {
        provider = event.provider;
        model = event.model;
      } else if (event.type === "text_delta") {
        // Commentary before a tool call and the final answer are separate paragraphs on screen.
        if (!text && shownText) input.onText?.("\n\n");
        text += event.text;
        shownText = true;
        input.onText?.(event.text);
      } else if (event.type === "tool_call") calls.push(event.call);
      else if (event.type === "reasoning") reply.content.push(event.part);
      else if (event.type === "reasoning_summary") input.onReasoningSummary?.(event.text);
      else if (event.type === "error") failure = event.error;
      else if (event.type === "done") {
        stopReason = event.stopReason;
        if (event.usage) input.onUsage?.(event.usage);
      }
    }
    if (failure) return { ok: false, failure, afterOutput: shownText || added.length > 0, provider };
    // Pin the winning route for the rest of the turn.
    routes = routes.filter((r) => r.descriptor.id === provider);

    if (text) reply.content.push({ type: "text", text });
    reply.content.push(...calls);
    if (!calls.length) {
      added.push(reply);
      return { ok: true, text, added, provider, model, ...(stopReason === "length" ? { truncated: true } : {}) };
    }
    input.onItemEnd?.();
    messages.push(reply);
    added.push(reply);

    // tool_call {name, arguments} runs as the real tool: dispatch, policy and the loop detector see its name.
    const real = calls.map(unwrapToolCall);
    const verdicts = real.map((c) => detector.observe(c));
    if (verdicts.includes("abort")) {
      throw LoopDetected(
        `Repeated tool call loop detected: the model made the same call ${LOOP_ABORT_AT} times, so the turn was stopped`,
      );
    }
    const outcomes = await runCalls(real, input);
    const images: ImagePart[] = [];
    outcomes.forEach((outcome, i) => {
      const call = calls[i]!;
      let content = outcome.content;
      if (outcome.images?.length) content += showToolImages.note(routes[0]!, outcome.images, images);
      if (verdicts[i] === "warn") {
        content += `\n\n[fermix: this exact ${call.name} call has now been made ${LOOP_WARN_AT}+ times; it will not give a different result. Change approach or answer with what you have.]`;
      }
      const result: ToolResultMessage = {
        role: "tool",
        toolCallId: call.id,
        toolName: call.name,
        content,
        isError: outcome.isError,
      };
      messages.push(result);
      added.push(result);
    });
    // Pictures a tool returned (a browser screenshot) reach the model as image parts of a user message after the
    // results, the one place every wire takes images; this turn only: history keeps the results' text.
    if (images.length)
      showToolImages.attach(messages, images, Math.max(1, ...outcomes.map((o) => o.retainImages ?? 1)));
    // A lone successful reaction is the whole answer: no model call after it, no text bubble.
    if (!text && outcomes.length === 1 && outcomes[0]!.endsTurn && !outcomes[0]!.isError) {
      return { ok: true, text: "", added, provider, model };
    }
  }
  throw IterationLimit(`the turn reached its limit of ${limit} model calls without a final answer`);
}

/** Read-only calls run together; a write or an exec waits for everything asked before it. */
async function runCalls(calls: ToolCallPart[], input: LoopInput): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = new Array(calls.length);
  let batch: Array<Promise<void>> = [];
  const record = (i: number) => async () => {
    input.onToolStart?.(calls[i]!.name);
    const outcome = await input.registry.dispatch(calls[i]!, input.toolContext);
    input.onToolExecution?.({ name: outcome.name, durationMs: outcome.durationMs, ok: !outcome.isError });
    traceToolExec(input.toolContext.trace, calls[i]!, outcome);
    outcomes[i] = outcome;
  };
  const surface = new Map(input.toolContext.surface().map((t) => [t.name, t]));
  for (let i = 0; i < calls.length; i++) {
    if (input.signal?.aborted) break;
    const readOnly = surface.get(calls[i]!.name)?.readOnly === true;
    if (readOnly) {
      batch.push(record(i)());
      continue;
    }
    await Promise.all(batch);
    batch = [];
    await record(i)();
  }
  await Promise.all(batch);
  for (let i = 0; i < calls.length; i++) {
    outcomes[i] ??= { name: calls[i]!.name, durationMs: 0, isError: true, content: "cancelled" };
  }
  return outcomes;
}
