/**
 * A stand-in for the owner's `codex` and `claude` CLIs: `bun fake-vendor.ts codex|claude <their args…>`. It records
 * its arguments and process ids, then prints the vendor's JSON event stream (the shapes of `codex exec --json` and
 * `claude -p --output-format stream-json --verbose`). A marker in the prompt (or FAKE_HARNESS_MODE) picks the
 * behaviour: [hang] (starts a helper and never ends), [fail] (exits 2 with an error on stderr), [vendor-error]
 * (the vendor's own failure event), [slow] (an event every FAKE_HARNESS_DELAY_MS, 20 by default), [garbage]
 * (lines that are not JSON).
 */
import { appendFileSync, writeFileSync } from "node:fs";

const [vendor, ...args] = process.argv.slice(2);
const prompt = vendor === "codex" ? args[args.length - 1]! : args[args.indexOf("--") + 1]!;
const mode =
  process.env.FAKE_HARNESS_MODE ?? /\[(hang|fail|vendor-error|slow|garbage)\]/.exec(prompt ?? "")?.[1] ?? "ok";
const log = process.env.FAKE_HARNESS_LOG;
if (log) {
  appendFileSync(log, `${JSON.stringify({ vendor, args, pid: process.pid, cwd: process.cwd(), mode })}\n`);
}
const delay = Number(process.env.FAKE_HARNESS_DELAY_MS ?? 20);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const emit = (event: unknown) => process.stdout.write(`${JSON.stringify(event)}\n`);
const session = "0199a213-81c0-7800-8aa1-bbab2a035a53";

async function codex() {
  emit({ type: "thread.started", thread_id: session });
  emit({ type: "turn.started" });
  if (mode === "hang") return hang();
  if (mode === "garbage") {
    for (let i = 0; i < 50; i++) process.stdout.write("not json at all\n");
  }
  if (mode === "slow") await sleep(delay);
  const command = { id: "item_1", type: "command_execution", command: "bash -lc 'bun test'" };
  emit({ type: "item.started", item: { ...command, aggregated_output: "", exit_code: null, status: "in_progress" } });
  if (mode === "slow") await sleep(delay);
  emit({
    type: "item.completed",
    item: { ...command, aggregated_output: "3 pass\n", exit_code: 0, status: "completed" },
  });
  emit({
    type: "item.completed",
    item: { id: "item_2", type: "file_change", changes: [{ path: "src/add.ts", kind: "update" }], status: "completed" },
  });
  if (mode === "vendor-error") {
    emit({ type: "turn.failed", error: { message: "stream disconnected before completion" } });
    process.exit(1);
  }
  if (mode === "fail") {
    process.stderr.write("Error: unexpected argument '--bogus' found\n");
    process.exit(2);
  }
  const answer = `Fixed the off-by-one in src/add.ts; tests pass. (${prompt})`;
  emit({ type: "item.completed", item: { id: "item_3", type: "agent_message", text: answer } });
  emit({ type: "turn.completed", usage: { input_tokens: 2400, cached_input_tokens: 1200, output_tokens: 310 } });
  const out = args[args.indexOf("-o") + 1];
  if (out) writeFileSync(out, answer);
}

async function claude() {
  emit({
    type: "system",
    subtype: "init",
    cwd: process.cwd(),
    session_id: session,
    tools: ["Bash", "Edit", "Read"],
    mcp_servers: [],
    model: "claude-sonnet-4-5",
    permissionMode: "default",
    apiKeySource: "none",
  });
  if (mode === "hang") return hang();
  if (mode === "slow") await sleep(delay);
  emit({
    type: "assistant",
    message: {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "bun test" } }],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 20 },
    },
    parent_tool_use_id: null,
    session_id: session,
  });
  emit({
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "3 pass" }] },
    parent_tool_use_id: null,
    session_id: session,
  });
  if (mode === "fail") {
    process.stderr.write("Error: Invalid API key · Please run /login\n");
    process.exit(1);
  }
  const answer = `All tests pass now. (${prompt})`;
  emit({
    type: "assistant",
    message: { id: "msg_02", role: "assistant", content: [{ type: "text", text: answer }] },
    parent_tool_use_id: null,
    session_id: session,
  });
  emit({
    type: "result",
    subtype: mode === "vendor-error" ? "error_max_turns" : "success",
    is_error: mode === "vendor-error",
    duration_ms: 4200,
    duration_api_ms: 3900,
    num_turns: 2,
    result: answer,
    session_id: session,
    total_cost_usd: 0.0123,
    usage: { input_tokens: 30, output_tokens: 40, cache_read_input_tokens: 0 },
  });
}

/** Never ends: a helper process in the same group stands for the build a real CLI would be waiting on. */
async function hang() {
  const helper = Bun.spawn(["sleep", "600"], { stdout: "ignore", stderr: "ignore" });
  if (log) appendFileSync(log, `${JSON.stringify({ helper: helper.pid })}\n`);
  await new Promise(() => {});
}

await (vendor === "codex" ? codex() : claude());
