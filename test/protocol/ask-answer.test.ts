/**
 * Reading `POST /v1/ask`'s answer (src/protocol/ask-answer.ts) when the daemon goes away: a connection dropped in the
 * middle of the answer, or an answer that ends without its `done`, is one sentence that says where to look, never the
 * runtime's socket error.
 */
import { describe, expect, test } from "bun:test";
import { readAskAnswer } from "../../src/protocol/ask-answer.ts";
import { cleanupAfterEach } from "../fixture/cleanup.ts";

const defer = cleanupAfterEach();

/** A raw HTTP peer on loopback that sends an SSE answer's head and first lines, then closes as `ending` says. */
function daemonThatLeaves(ending: "drop" | "finish") {
  const head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
  const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        const lines = chunk(': answering\n\nevent: text\ndata: {"delta":"par"}\n\n');
        // "drop": the connection ends inside the chunked body (a daemon killed mid-answer); "finish": the body ends
        // properly, but no `done` event came.
        socket.end(head + lines + (ending === "finish" ? "0\r\n\r\n" : ""));
      },
    },
  });
  defer(() => server.stop(true));
  return `http://127.0.0.1:${server.port}/v1/ask`;
}

describe("an answer the daemon did not finish", () => {
  for (const ending of ["drop", "finish"] as const) {
    test(`${ending === "drop" ? "a dropped connection" : "an end without done"} says so and where to look`, async () => {
      const deltas: string[] = [];
      const response = await fetch(daemonThatLeaves(ending), { method: "POST", body: "{}" });
      const reading = readAskAnswer(response, { onText: (d) => void deltas.push(d) });
      await expect(reading).rejects.toThrow(
        "the daemon closed the answer before it finished; `fermix status` says whether it still runs, `fermix logs` why not",
      );
      // What came before a drop may go with it (the runtime can discard a reset connection's last bytes).
      if (ending === "finish") expect(deltas).toEqual(["par"]);
    });
  }
});
