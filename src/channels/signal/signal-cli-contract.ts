/**
 * starting: launched, not yet answering; running: answering; restarting: it ended and waits out its backoff;
 * missing: the executable is not there (looked for again on each attempt); stopped: after stop().
 */
export type SignalCliState = "starting" | "running" | "restarting" | "missing" | "stopped";

export type SignalCliStatus = {
  state: SignalCliState;
  /** Why it is not running: the last exit (code and last stderr line), or what could not be found. */
  reason?: string;
  /** When it last answered or sent a notification. */
  lastSeenAt?: number;
  restarts: number;
};

/** The long-lived `signal-cli jsonRpc` child: kept running, asked JSON-RPC requests, its state as data. */
export interface SignalCli {
  /** Starts the child and keeps it running until stop(); returns at once. */
  start(): void;

  /** A request to the running signal-cli; rejects with SignalRpcError (its answer) or SignalCliUnavailable. */
  request(method: string, params: Record<string, unknown>, opts?: { timeoutMs?: number }): Promise<unknown>;

  status(): SignalCliStatus;

  /** Ends the child and its process group; resolves once it has exited. */
  stop(): Promise<void>;
}
