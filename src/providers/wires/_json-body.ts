/**
 * A request body already serialized: postForEvents sends its text as it is. A daemon's turns send the same tool
 * schemas call after call (~10 KB of a ~14 KB body with the built-in tools), so a wire serializes each once and
 * splices it in.
 */
export class JsonBody {
  constructor(readonly text: string) {}
}

/**
 * `{ ...head, [key]: <raw>, ...tail }` as JSON.stringify writes it (same keys, same order, same bytes), where `raw` is
 * the value's JSON text, already serialized.
 */
export function spliceJson(head: Record<string, unknown>, key: string, raw: string, tail: Record<string, unknown>) {
  const before = JSON.stringify(head);
  const after = JSON.stringify(tail);
  const opening = before === "{}" ? "{" : `${before.slice(0, -1)},`;
  const closing = after === "{}" ? "}" : `,${after.slice(1)}`;
  return new JsonBody(`${opening}${JSON.stringify(key)}:${raw}${closing}`);
}

/**
 * The JSON text of `value`, made by `serialize`, kept while `owner` lives and `parts` are the same values: a tool's
 * spec object is cached by the registry, and a spec rebuilt or changed (a plugin reloaded) is serialized afresh.
 */
export function serializedOnce<Owner extends object>(
  cache: WeakMap<Owner, { parts: readonly unknown[]; json: string }>,
  owner: Owner,
  parts: readonly unknown[],
  serialize: () => unknown,
): string {
  const hit = cache.get(owner);
  if (hit && hit.parts.length === parts.length && hit.parts.every((p, i) => p === parts[i])) return hit.json;
  const json = JSON.stringify(serialize());
  cache.set(owner, { parts, json });
  return json;
}
