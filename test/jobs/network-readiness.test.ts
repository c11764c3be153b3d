import { describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { waitForNetwork } from "../../src/jobs/network-readiness.ts";

function listen(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((socket) => socket.end());
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({ port, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

describe("network readiness before a scheduled run", () => {
  test("a host that accepts connections is ready at once", async () => {
    const server = await listen();
    expect(await waitForNetwork(`http://127.0.0.1:${server.port}/v1`)).toBe(true);
    await server.close();
  });

  test("a host that refuses is retried until the budget, then the run goes ahead with a log line", async () => {
    const server = await listen();
    const { port } = server;
    await server.close(); // nothing listens there now: connections are refused
    const logs: string[] = [];
    const ready = await waitForNetwork(`http://127.0.0.1:${port}`, {
      intervalMs: 20,
      budgetMs: 200,
      log: (m) => logs.push(m),
    });
    expect(ready).toBe(false);
    expect(logs[0]).toMatch(
      new RegExp(
        `^network not ready: 127\\.0\\.0\\.1:${port} did not accept a connection in \\d+ attempts; running anyway$`,
      ),
    );
  });
});
