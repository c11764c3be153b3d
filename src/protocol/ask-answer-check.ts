import { FermixError } from "../error.ts";
import type { ApprovalRequest, AskDone, AskUsage, ErrorBody } from "./ask-answer-schemas.ts";

/*
 * The daemon's answer events (`text`, `notice`, `done`, `error`) checked by hand against ask-answer-schemas.ts, which
 * stays their definition: test/protocol/ask-answer-check.test.ts holds each check equal to its schema, case by case
 * (what either accepts the other accepts, with the same output). Measured need (issue 31): valibot's part of reading
 * an answer, its chunk, the schemas' construction and their first parse, cost a daemon-up `fermix ask` 0.62 ms of
 * CPU (9.40 against 8.78 ms, fresh copies of both builds, 60 runs), which 200 clients asking at once pay 200 times.
 * As valibot's objects do, each check returns a new object holding only the schema's keys.
 */

type Json = Record<string, unknown>;

/** `text`'s data: one delta of the answer. */
export function checkText(data: unknown): { delta: string } {
  const event = object(data, "text");
  return { delta: string(event, "delta", "text") };
}

/** `notice`'s data: a message for the owner, and the approval it asks for, if any. */
export function checkNotice(data: unknown): { text: string; approval?: ApprovalRequest } {
  const event = object(data, "notice");
  const notice: { text: string; approval?: ApprovalRequest } = { text: string(event, "text", "notice") };
  if (event.approval !== undefined) {
    const at = "notice.approval";
    const approval = object(event.approval, at);
    notice.approval = {
      kind: string(approval, "kind", at),
      path: string(approval, "path", at),
      reason: string(approval, "reason", at),
      token: string(approval, "token", at),
    };
  }
  return notice;
}

/** `done`'s data: the finished answer. */
export function checkDone(data: unknown): AskDone {
  const event = object(data, "done");
  const done: AskDone = {
    response: string(event, "response", "done"),
    session_id: string(event, "session_id", "done"),
    provider: string(event, "provider", "done"),
    model: string(event, "model", "done"),
  };
  if (event.truncated !== undefined) done.truncated = boolean(event, "truncated", "done");
  if (event.usage !== undefined) done.usage = checkUsage(event.usage);
  return done;
}

/** `error`'s data, as every route's error body: data defaults to {}. */
export function checkError(data: unknown): ErrorBody {
  const event = object(data, "error");
  const body: ErrorBody = {
    code: string(event, "code", "error"),
    message: string(event, "message", "error"),
    data: {},
  };
  if (event.data !== undefined) body.data = copyOf(object(event.data, "error.data"));
  return body;
}

function checkUsage(value: unknown): AskUsage {
  const at = "done.usage";
  const usage = object(value, at);
  return {
    input_tokens: number(usage, "input_tokens", at),
    cached_input_tokens: number(usage, "cached_input_tokens", at),
    output_tokens: number(usage, "output_tokens", at),
    reasoning_tokens: number(usage, "reasoning_tokens", at),
  };
}

/** As valibot's object() and record() take it: any non-null object (an array lacks the keys asked for). */
function object(value: unknown, at: string): Json {
  if (typeof value === "object" && value !== null) return value as Json;
  throw malformed(`${at} is not an object`);
}

/** A record's own keys, as valibot's record() copies them: never one that could reach a prototype. */
function copyOf(record: Json): Json {
  const copy: Json = {};
  for (const key in record) {
    if (Object.hasOwn(record, key) && key !== "__proto__" && key !== "prototype" && key !== "constructor")
      copy[key] = record[key];
  }
  return copy;
}

function string(event: Json, key: string, at: string): string {
  const value = event[key];
  if (typeof value === "string") return value;
  throw malformed(`${at}.${key} is not a string`);
}

function number(event: Json, key: string, at: string): number {
  const value = event[key];
  // valibot's number() refuses NaN; JSON cannot carry one, but a check is a check.
  if (typeof value === "number" && !Number.isNaN(value)) return value;
  throw malformed(`${at}.${key} is not a number`);
}

function boolean(event: Json, key: string, at: string): boolean {
  const value = event[key];
  if (typeof value === "boolean") return value;
  throw malformed(`${at}.${key} is not true or false`);
}

function malformed(what: string): FermixError {
  return new FermixError(
    "protocol_error",
    `the daemon's answer is malformed (${what}); is it another fermix version? \`fermix status\` shows its version, \`fermix restart\` runs this one`,
  );
}
