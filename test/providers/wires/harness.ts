/**
 * What every wire test needs: a target built the way the app builds it (resolveRoutes, so descriptor
 * headers and base-URL rules apply) pointed at a fake, a drain that checks the wire's contract, and
 * the conversations a tool loop sends.
 */
import { afterEach } from "bun:test";
import { resolveRoutes } from "../../../src/providers/routes.ts";
import type {
  Message,
  ModelRequest,
  ProviderFailure,
  StopReason,
  StreamEvent,
  ToolCallPart,
  ToolSpec,
  Usage,
  Wire,
  WireCall,
  WireTarget,
} from "../../../src/providers/types.ts";
import type { FakeLlm } from "../../fake/llm.ts";

/** A fixed clock for the wire, so reset times derived from relative headers are exact. */
export const NOW = 1_760_000_000_000;

/** Call at a test file's top level: returns `started`, which starts a fake and closes it after the test. */
export function fakesClosedAfterEach(): (fake: Promise<FakeLlm>) => Promise<FakeLlm> {
  const open: FakeLlm[] = [];
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });
  return async (fake) => {
    const server = await fake;
    open.push(server);
    return server;
  };
}

/** The app's own target for `provider`, from a config block naming the fake's base URL. */
export function targetFor(provider: string, baseUrl: string, apiKey?: string, receiveTimeoutMs = 10_000): WireTarget {
  const block = apiKey === undefined ? { base_url: baseUrl } : { base_url: baseUrl, api_key: apiKey };
  const config = { fermix_core: { providers: { [provider]: block } } };
  const [route] = resolveRoutes(config, {}, { env: {}, secretsDir: "/nonexistent" });
  return { ...route!.target, receiveTimeoutMs };
}

/** A port nothing listens on: a fake that was started and closed. */
export async function closedPort(start: () => Promise<FakeLlm>): Promise<string> {
  const fake = await start();
  await fake.close();
  return fake.baseUrl;
}

export type Outcome = {
  events: StreamEvent[];
  deltas: string[];
  text: string;
  toolCalls: ToolCallPart[];
  done?: { stopReason: StopReason; usage?: Usage };
  error?: ProviderFailure;
};

/**
 * Drains one call and checks the contract every wire keeps: it never throws, and exactly one
 * terminal event (`done` or `error`) comes last.
 */
export async function drain(wire: Wire, call: WireCall, onEvent?: (e: StreamEvent) => void): Promise<Outcome> {
  const events: StreamEvent[] = [];
  for await (const event of wire.stream(call, { fetch, now: () => NOW })) {
    events.push(event);
    onEvent?.(event);
  }
  const terminals = events.filter((e) => e.type === "done" || e.type === "error");
  if (terminals.length !== 1 || terminals[0] !== events.at(-1)) {
    throw new Error(`expected exactly one terminal event, last: ${JSON.stringify(events)}`);
  }
  const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.text] : []));
  const last = events.at(-1)!;
  return {
    events,
    deltas,
    text: deltas.join(""),
    toolCalls: events.flatMap((e) => (e.type === "tool_call" ? [e.call] : [])),
    done: last.type === "done" ? { stopReason: last.stopReason, usage: last.usage } : undefined,
    error: last.type === "error" ? last.error : undefined,
  };
}

export const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

export const WEATHER: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city"],
  },
};

/** Arguments long enough to be split over several fragments by every fake. */
export const WEATHER_ARGS = { city: "Lyon, France", days: 3, units: { temp: "celsius", wind: "km/h" } };

export function request(model: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model, system: "You are terse.", messages: [user("What is the weather in Lyon?")], ...extra };
}

/** The follow-up of a tool loop: the user's turn, the model's call (and any words), then the result. */
export function toolLoopHistory(calls: ToolCallPart[], said = ""): Message[] {
  return [
    user("What is the weather in Lyon?"),
    { role: "assistant", content: [...(said ? [{ type: "text" as const, text: said }] : []), ...calls] },
    ...calls.map((c): Message => ({ role: "tool", toolCallId: c.id, toolName: c.name, content: "12°C, light rain" })),
  ];
}
