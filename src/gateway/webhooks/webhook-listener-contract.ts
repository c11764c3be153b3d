/** One webhook route a channel serves, e.g. POST /webhook/slack. */
export type WebhookRoute = {
  method: "GET" | "POST";
  path: string;
  /**
   * Answers one request. `rawBody` is the body exactly as it arrived: signatures are checked over it before
   * anything is parsed.
   */
  handle(request: Request, rawBody: Uint8Array): Promise<Response>;
};

export type WebhookRegistry = { register(route: WebhookRoute): void };

// The loopback listener's states, written out so this contract imports no implementation.
export type WebhookListenerState =
  | { state: "idle" }
  | { state: "listening"; port: number }
  | { state: "failed"; port: number; reason: string };

/** The webhook port: channels register routes on it, and it listens only once one has. */
export interface WebhookListener extends WebhookRegistry {
  /** Starts listening when any route is registered; resolves with the state either way. */
  start(): WebhookListenerState;
  stop(): Promise<void>;
  state(): WebhookListenerState;
}
