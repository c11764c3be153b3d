export type WebState =
  | { state: "disabled" }
  | { state: "idle" }
  | { state: "listening"; port: number }
  | { state: "failed"; port: number; reason: string };

/** The local setup site in the daemon: started, stopped and its state, for doctor and status. */
export interface WebServer {
  /** Listens on 127.0.0.1; a failure (the port in use) is the returned state, never a throw. */
  start(): WebState;
  stop(): Promise<void>;
  state(): WebState;
  /** For tests: how many browser sessions the daemon holds (none before the first request loads the site). */
  sessionCount(): number;
}

/** The pages behind the listener, loaded on its first request: an idle daemon carries none of their code. */
export interface WebSite {
  /** Answers one request; `port` is the one listened on (the Host and Origin gates compare against it). */
  handle(request: Request, port: number): Promise<Response>;
  sessionCount(): number;
}
