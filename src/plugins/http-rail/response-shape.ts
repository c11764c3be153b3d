import { isRecord } from "../manifest/templates.ts";

/** Sentinel for "the path does not lead anywhere", distinct from a JSON null found there. */
export const MISSING = Symbol("missing");

/** Follows a dotted path such as `response_metadata.next_cursor` or `items.0.id` (digits index lists). */
export function atPath(value: unknown, path: string | undefined): unknown {
  if (path === undefined || path === "") return value;
  let here: unknown = value;
  for (const key of path.split(".")) {
    if (Array.isArray(here) && /^\d+$/.test(key)) here = here[Number(key)];
    else if (isRecord(here) && Object.hasOwn(here, key)) here = here[key];
    else return MISSING;
    if (here === undefined) return MISSING;
  }
  return here;
}

/** Keeps only `fields` of each item (or of the one object): less for the model to read, nothing it asked for lost. */
export function pickFields(value: unknown, fields: readonly string[] | undefined): unknown {
  if (!fields?.length) return value;
  const pick = (item: unknown) => {
    if (!isRecord(item)) return item;
    const out: Record<string, unknown> = {};
    for (const field of fields) if (Object.hasOwn(item, field)) out[field] = item[field];
    return out;
  };
  return Array.isArray(value) ? value.map(pick) : pick(value);
}

/**
 * Applies `extract` to a whole (unpaginated) response. When the path is not there, the body goes back as is: that
 * is usually an API's own error shape (Slack answers 200 with `{"ok":false,"error":…}`), which the model can read.
 */
export function extract(body: unknown, spec: { path?: string; fields?: string[] } | undefined): unknown {
  if (spec === undefined) return body;
  const found = atPath(body, spec.path);
  if (found === MISSING) return body;
  return pickFields(found, spec.fields);
}

/** `application/json`, `application/problem+json`, `application/vnd.github+json; charset=utf-8`, … */
export function isJsonType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const mime = contentType.split(";")[0]!.trim().toLowerCase();
  return mime === "application/json" || mime.endsWith("+json");
}
