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
  return strings(event, ["delta"], "text");
}

/** `notice`'s data: a message for the owner, and the approval it asks for, if any. */
export function checkNotice(data: unknown): { text: string; approval?: ApprovalRequest } {
  const event = object(data, "notice");
  const notice: { text: string; approval?: ApprovalRequest } = strings(event, ["text"], "notice");
  if (event.approval !== undefined) {
    const at = "notice.approval";
    notice.approval = strings(object(event.approval, at), ["kind", "path", "reason", "token"], at);
  }
  return notice;
}

/** `done`'s data: the finished answer. */
export function checkDone(data: unknown): AskDone {
  const event = object(data, "done");
  const done: AskDone = strings(event, ["response", "session_id", "provider", "model"], "done");
  if (event.truncated !== undefined) done.truncated = boolean(event, "truncated", "done");
  if (event.usage !== undefined) done.usage = checkUsage(event.usage);
  return done;
}

/** `error`'s data, as every route's error body: data defaults to {}. */
export function checkError(data: unknown): ErrorBody {
  const event = object(data, "error");
  const body: ErrorBody = { ...strings(event, ["code", "message"], "error"), data: {} };
  if (event.data !== undefined) body.data = copyOf(object(event.data, "error.data"));
  return body;
}

function checkUsage(value: unknown): AskUsage {
  const at = "done.usage";
  const usage = object(value, at);
  const out = {} as AskUsage;
  for (const key of ["input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens"] as const)
    out[key] = number(usage, key, at);
  return out;
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

/** `keys` of `event`, each a string. A loop, not map or fromEntries: those run cold in a client process. */
function strings<K extends string>(event: Json, keys: readonly K[], at: string): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const key of keys) {
    const value = event[key];
    if (typeof value !== "string") throw malformed(`${at}.${key} is not a string`);
    out[key] = value;
  }
  return out;
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
