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
  /** For tests: how many browser sessions the daemon holds. */
  sessionCount(): number;
}
