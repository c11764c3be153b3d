import type { ServerWebSocket } from "bun";

/**
 * The gateway half of the fake Discord (see discord-api.ts): API v10, JSON encoding, uncompressed, one shard —
 * strict the way Discord is. Hello (op 10) on connect; Identify (op 2) checked for the token (4004), the intents
 * (4013/4014), a second Identify (4005); anything before it but a heartbeat or Resume closes with 4003, an unknown
 * op with 4001, undecodable JSON with 4002. Heartbeats (op 1) are acknowledged (op 11) and must keep coming, or
 * the session times out (4009). Each session numbers its dispatches and keeps them: Resume (op 6) with the session
 * id and last sequence replays what the client missed, then RESUMED; an unknown session gets op 9 (false). The
 * test drives it: dispatch events, drop the socket, ask for a reconnect (op 7) or a heartbeat (op 1), or — hostile
 * the way a broken Discord would be — answer Identify with a READY whose `d` is not a session (`malformReady`).
 */

export type GatewayFrame = { connection: number; op: number; d: any; at: number };
export type Dispatch = { s: number; t: string; d: any };
export type SessionStart = { kind: "ready" | "resumed"; connection: number; sessionId: string; at: number };

export type SocketData = { connection: number };

type Session = { id: string; seq: number; events: Dispatch[]; socket?: ServerWebSocket<SocketData> };
type Connection = {
  id: number;
  socket: ServerWebSocket<SocketData>;
  identified: boolean;
  session?: Session;
  lastBeatAt: number;
  watchdog?: ReturnType<typeof setInterval>;
};
type Waiter<T> = { predicate: (value: T) => boolean; resolve: (value: T) => void };

export const INTENT_MESSAGE_CONTENT = 1 << 15;
const ALL_INTENTS = (1 << 26) - 1;

export type FakeGatewayOptions = {
  token: string;
  /** READY's user and application. */
  bot: Record<string, unknown>;
  applicationId: string;
  /** What READY names as resume_gateway_url (this fake's own URL). */
  resumeUrl: () => string;
  heartbeatIntervalMs: number;
  /** Whether the app has the Message Content privileged intent turned on in the Developer Portal. */
  messageContentIntent: boolean;
};

export function createFakeGateway(options: FakeGatewayOptions) {
  const frames: GatewayFrame[] = [];
  const starts: SessionStart[] = [];
  /** Every socket that ended, with its close code (1006 when it dropped without a close frame). */
  const closes: Array<{ connection: number; code: number; at: number }> = [];
  /** The connections this fake closed itself, and why (4004 for a wrong token, 4009 for missed heartbeats…). */
  const refusals: Array<{ connection: number; code: number; reason: string; at: number }> = [];
  /** Events a Resume replayed (sent after the sequence the client named). */
  const replayed: Dispatch[] = [];
  /** The malformed READYs sent (`malformReady`), one per Identify answered that way. */
  const malformed: Array<{ connection: number; at: number }> = [];
  const frameWaiters = new Set<Waiter<GatewayFrame>>();
  const malformedWaiters = new Set<Waiter<typeof malformed>>();
  const closeWaiters = new Set<Waiter<(typeof closes)[number]>>();
  /** While set, every Identify is answered with READY carrying this `d` (and no session starts). */
  let badReady: { d: unknown } | undefined;
  /** While set, every Identify is left unanswered (a gateway that hangs before READY). */
  let silent = false;
  const startWaiters = new Set<Waiter<SessionStart[]>>();
  const connections = new Map<number, Connection>();
  const sessions = new Map<string, Session>();
  let current: Session | undefined;
  let nextConnection = 1;

  const send = (socket: ServerWebSocket<SocketData>, payload: Record<string, unknown>) =>
    socket.send(JSON.stringify({ s: null, t: null, ...payload }));

  function close(connection: Connection, code: number, reason: string) {
    refusals.push({ connection: connection.id, code, reason, at: Date.now() });
    connection.socket.close(code, reason);
  }

  function started(start: SessionStart) {
    starts.push(start);
    for (const waiter of [...startWaiters]) {
      if (waiter.predicate(starts)) {
        startWaiters.delete(waiter);
        waiter.resolve(starts);
      }
    }
  }

  /** Numbers the event in its session and sends it now when the session's socket is live (else on resume). */
  function emit(session: Session, t: string, d: unknown): Dispatch {
    const event: Dispatch = { s: ++session.seq, t, d };
    session.events.push(event);
    if (session.socket) send(session.socket, { op: 0, ...event });
    return event;
  }

  function identify(connection: Connection, d: any) {
    if (connection.identified) return close(connection, 4005, "Already authenticated.");
    if (typeof d?.token !== "string" || d.token !== options.token)
      return close(connection, 4004, "Authentication failed.");
    const props = d.properties;
    if (typeof props?.os !== "string" || typeof props?.browser !== "string" || typeof props?.device !== "string") {
      return close(connection, 4002, "Error while decoding payload.");
    }
    if (!Number.isInteger(d.intents) || d.intents < 0 || d.intents > ALL_INTENTS) {
      return close(connection, 4013, "Invalid intent(s).");
    }
    if (d.intents & INTENT_MESSAGE_CONTENT && !options.messageContentIntent) {
      return close(connection, 4014, "Disallowed intent(s).");
    }
    if (d.shard !== undefined && JSON.stringify(d.shard) !== "[0,1]") return close(connection, 4010, "Invalid shard.");
    if (silent) {
      connection.identified = true;
      return;
    }
    if (badReady) {
      connection.identified = true;
      send(connection.socket, { op: 0, t: "READY", s: 1, d: badReady.d });
      malformed.push({ connection: connection.id, at: Date.now() });
      for (const waiter of [...malformedWaiters]) {
        if (waiter.predicate(malformed)) {
          malformedWaiters.delete(waiter);
          waiter.resolve(malformed);
        }
      }
      return;
    }
    const session: Session = {
      id: crypto.randomUUID().replaceAll("-", ""),
      seq: 0,
      events: [],
      socket: connection.socket,
    };
    sessions.set(session.id, session);
    connection.identified = true;
    connection.session = session;
    current = session;
    emit(session, "READY", {
      v: 10,
      user: options.bot,
      guilds: [],
      session_id: session.id,
      session_type: "normal",
      resume_gateway_url: options.resumeUrl(),
      shard: [0, 1],
      application: { id: options.applicationId, flags: 1 << 19 },
    });
    started({ kind: "ready", connection: connection.id, sessionId: session.id, at: Date.now() });
  }

  function resume(connection: Connection, d: any) {
    const session = typeof d?.session_id === "string" ? sessions.get(d.session_id) : undefined;
    if (!session || d.token !== options.token || !Number.isInteger(d.seq) || d.seq > session.seq) {
      send(connection.socket, { op: 9, d: false });
      return;
    }
    // The old socket, if Discord still held it, is replaced.
    if (session.socket && session.socket !== connection.socket) session.socket.close(4000, "Resumed elsewhere.");
    session.socket = connection.socket;
    connection.identified = true;
    connection.session = session;
    current = session;
    for (const event of session.events) {
      if (event.s <= d.seq) continue;
      replayed.push(event);
      send(connection.socket, { op: 0, ...event });
    }
    emit(session, "RESUMED", null);
    started({ kind: "resumed", connection: connection.id, sessionId: session.id, at: Date.now() });
  }

  return {
    frames,
    starts,
    closes,
    refusals,
    replayed,
    malformed,

    open(socket: ServerWebSocket<SocketData>) {
      const id = socket.data.connection;
      const connection: Connection = { id, socket, identified: false, lastBeatAt: Date.now() };
      connections.set(id, connection);
      send(socket, { op: 10, d: { heartbeat_interval: options.heartbeatIntervalMs } });
      // Discord ends a connection whose heartbeats stop; the slack covers the client's jitter and a busy machine.
      connection.watchdog = setInterval(() => {
        if (Date.now() - connection.lastBeatAt > options.heartbeatIntervalMs * 3 + 2000) {
          close(connection, 4009, "Session timed out.");
        }
      }, options.heartbeatIntervalMs);
    },

    message(socket: ServerWebSocket<SocketData>, raw: string | Buffer) {
      const connection = connections.get(socket.data.connection);
      if (!connection) return;
      let payload: any;
      try {
        payload = JSON.parse(typeof raw === "string" ? raw : new TextDecoder().decode(raw));
      } catch {
        return close(connection, 4002, "Error while decoding payload.");
      }
      const frame: GatewayFrame = { connection: connection.id, op: payload?.op, d: payload?.d, at: Date.now() };
      frames.push(frame);
      for (const waiter of [...frameWaiters]) {
        if (waiter.predicate(frame)) {
          frameWaiters.delete(waiter);
          waiter.resolve(frame);
        }
      }
      switch (payload?.op) {
        case 1:
          if (payload.d !== null && !Number.isInteger(payload.d))
            return close(connection, 4002, "Error while decoding payload.");
          connection.lastBeatAt = Date.now();
          send(socket, { op: 11 });
          return;
        case 2:
          return identify(connection, payload.d);
        case 6:
          if (connection.identified) return close(connection, 4005, "Already authenticated.");
          return resume(connection, payload.d);
        case 3:
        case 4:
        case 8:
          if (!connection.identified) return close(connection, 4003, "Not authenticated.");
          return;
        default:
          if (!connection.identified) return close(connection, 4003, "Not authenticated.");
          return close(connection, 4001, "Unknown opcode.");
      }
    },

    close(socket: ServerWebSocket<SocketData>, code: number) {
      const connection = connections.get(socket.data.connection);
      if (!connection) return;
      clearInterval(connection.watchdog);
      connections.delete(connection.id);
      const closed = { connection: connection.id, code, at: Date.now() };
      closes.push(closed);
      for (const waiter of [...closeWaiters]) {
        if (waiter.predicate(closed)) {
          closeWaiters.delete(waiter);
          waiter.resolve(closed);
        }
      }
      // The session outlives its socket: events from now on wait for a Resume.
      if (connection.session?.socket === socket) connection.session.socket = undefined;
    },

    nextConnection: () => nextConnection++,

    /** A dispatch in the current session (sent now, or replayed when the client resumes). */
    dispatch(t: string, d: unknown): Dispatch {
      if (!current) throw new Error("the fake Discord gateway has no session yet: await waitForSession() first");
      return emit(current, t, d);
    },

    /** Whether a session exists (a bot that never connected is sent nothing, as on Discord). */
    hasSession: () => current !== undefined,

    /** The live connection of the current session. */
    live(): ServerWebSocket<SocketData> | undefined {
      return current?.socket;
    },

    /** Sends an op to the current session's live socket (7 reconnect, 1 heartbeat request, 9 invalid session). */
    sendOp(op: number, d: unknown = null) {
      const socket = current?.socket;
      if (!socket) throw new Error("the fake Discord gateway has no live connection");
      send(socket, { op, d });
    },

    waitForFrame(predicate: (frame: GatewayFrame) => boolean): Promise<GatewayFrame> {
      const found = frames.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => frameWaiters.add({ predicate, resolve }));
    },

    /**
     * From now on every Identify is answered with `{"op":0,"t":"READY","s":1,"d":<d>}` — `d: null` is the frame that
     * used to end the daemon — and no session starts; `undefined` goes back to real READYs.
     */
    malformReady(d: unknown) {
      badReady = d === undefined ? undefined : { d };
    },

    /** From now on Identify gets no answer at all, until called with false. */
    silenceReady(on: boolean) {
      silent = on;
    },

    waitForMalformed(n: number): Promise<typeof malformed> {
      const predicate = (list: typeof malformed) => list.length >= n;
      if (predicate(malformed)) return Promise.resolve(malformed);
      return new Promise((resolve) => malformedWaiters.add({ predicate, resolve }));
    },

    /** Resolves with the first socket end (recorded or to come) that `predicate` accepts. */
    waitForClose(predicate: (closed: (typeof closes)[number]) => boolean): Promise<(typeof closes)[number]> {
      const found = closes.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => closeWaiters.add({ predicate, resolve }));
    },

    waitForStarts(predicate: (starts: SessionStart[]) => boolean): Promise<SessionStart[]> {
      if (predicate(starts)) return Promise.resolve(starts);
      return new Promise((resolve) => startWaiters.add({ predicate, resolve }));
    },

    stop() {
      for (const connection of connections.values()) {
        clearInterval(connection.watchdog);
        connection.socket.terminate();
      }
      connections.clear();
    },
  };
}

export type FakeGateway = ReturnType<typeof createFakeGateway>;
