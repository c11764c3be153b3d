import { describe, expect, test } from "bun:test";
import { EventEmitter } from "node:events";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { stdioLineLimit } from "../../../src/mcp/inbound/stdio.ts";
import { LineTransport, MAX_LINE_BYTES } from "../../../src/mcp/inbound/stdio-transport.ts";

/*
 * The stdio transport of `fermix mcp serve` on in-memory streams: what reaches the server, what is answered on
 * the wire, and that a bad line never ends the stream.
 */

/** stdin as the transport sees it: `write` hands it a chunk as a pipe's "data" event would, synchronously. */
class FakeInput extends EventEmitter {
  pause() {
    return this;
  }
  write(chunk: string | Buffer) {
    this.emit("data", typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  }
}

function harness(maxLineBytes?: number) {
  const input = new FakeInput();
  let written = "";
  const output = {
    write(text: string) {
      written += text;
      return true;
    },
    once: () => output,
  };
  const transport = new LineTransport({ input, output, maxLineBytes });
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = false;
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e.message);
  transport.onclose = () => {
    closed = true;
  };
  const answers = () =>
    written
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { input, transport, messages, errors, answers, closed: () => closed };
}

const ping = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;

describe("LineTransport", () => {
  test("a line that is not JSON is answered with -32700 and id null; the next line is read", async () => {
    const h = harness();
    await h.transport.start();
    h.input.write(`this is not json\n${ping(1)}`);
    expect(h.answers()).toEqual([{ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) } }]);
    expect(h.messages).toEqual([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    expect(h.errors).toHaveLength(1);
    expect(h.closed()).toBe(false);
  });

  test("JSON that is not a JSON-RPC message is an Invalid Request (-32600), with its id when it has one", async () => {
    const h = harness();
    await h.transport.start();
    h.input.write('{"foo":"bar"}\n{"jsonrpc":"2.0","id":7,"method":1}\n[1,2]\n');
    expect(h.answers().map((a) => [a.id, a.error.code])).toEqual([
      [null, -32600],
      [7, -32600],
      [null, -32600],
    ]);
    expect(h.messages).toEqual([]);
  });

  test("a malformed response from the client is reported, not answered", async () => {
    const h = harness();
    await h.transport.start();
    h.input.write('{"jsonrpc":"2.0","id":"x","result":"not an object"}\n');
    expect(h.answers()).toEqual([]);
    expect(h.errors).toHaveLength(1);
  });

  test("blank lines and CRLF framing are accepted; a line split across chunks (mid-UTF-8) is joined", async () => {
    const h = harness();
    await h.transport.start();
    const line = Buffer.from(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { s: "héllo" } })}\r\n`,
    );
    const cut = line.indexOf(Buffer.from("é")) + 1;
    h.input.write("\n\r\n");
    h.input.write(line.subarray(0, cut));
    h.input.write(line.subarray(cut));
    expect(h.answers()).toEqual([]);
    expect(h.messages).toEqual([{ jsonrpc: "2.0", id: 2, method: "ping", params: { s: "héllo" } }]);
  });

  test("a line over the limit is answered once as it crosses it, skipped to its newline, and reading goes on", async () => {
    const h = harness(64);
    await h.transport.start();
    const long = `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"${"x".repeat(200)}"}}`;
    // Fed in pieces, as a pipe delivers it: the answer comes before the line has ended.
    h.input.write(long.slice(0, 100));
    expect(h.answers()).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("64 bytes") } },
    ]);
    h.input.write(long.slice(100));
    h.input.write(`\n${ping(4)}`);
    expect(h.answers()).toHaveLength(1);
    expect(h.messages).toEqual([{ jsonrpc: "2.0", id: 4, method: "ping" }]);
    expect(h.closed()).toBe(false);
    // A line of exactly the limit is still read.
    const exact = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping", params: { p: "" } });
    const padded = exact.replace('"p":""', `"p":"${"y".repeat(64 - exact.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(64);
    h.input.write(`${padded}\n`);
    expect(h.messages.at(-1)).toMatchObject({ id: 5 });
  });

  test("send writes one line per message; close stops reading and reports it", async () => {
    const h = harness();
    await h.transport.start();
    await h.transport.send({ jsonrpc: "2.0", id: 9, result: {} });
    expect(h.answers()).toEqual([{ jsonrpc: "2.0", id: 9, result: {} }]);
    await h.transport.close();
    expect(h.closed()).toBe(true);
    h.input.write(ping(10));
    expect(h.messages).toEqual([]);
  });

  test("the limit is 10 MiB; a test may lower it through the environment, never raise it", () => {
    expect(MAX_LINE_BYTES).toBe(10 * 1024 * 1024);
    expect(stdioLineLimit({})).toBe(MAX_LINE_BYTES);
    expect(stdioLineLimit({ FERMIX_TEST_MCP_STDIO_MAX_LINE_BYTES: "4096" })).toBe(4096);
    expect(stdioLineLimit({ FERMIX_TEST_MCP_STDIO_MAX_LINE_BYTES: String(MAX_LINE_BYTES * 4) })).toBe(MAX_LINE_BYTES);
    expect(stdioLineLimit({ FERMIX_TEST_MCP_STDIO_MAX_LINE_BYTES: "lots" })).toBe(MAX_LINE_BYTES);
  });
});
