/**
 * An in-memory OS keyring speaking the argv of `secret-tool` (store/lookup/clear) and macOS `security`
 * (add/find/delete-generic-password), so tests exercise the real commands' shapes without a keychain.
 * `calls` records every argv and stdin; `broken` makes every command fail like a missing binary.
 */
export function fakeKeyring(opts: { broken?: boolean } = {}) {
  const items = new Map<string, string>();
  const calls: { argv: string[]; stdin?: string }[] = [];
  const fail = { ok: false, stdout: "", stderr: "secret-tool: Cannot autolaunch D-Bus" };
  const run = (argv: string[], stdin?: string) => {
    calls.push({ argv, stdin });
    if (opts.broken) return fail;
    const [tool, op, ...rest] = argv;
    if (tool === "secret-tool") {
      const attrs = op === "store" ? rest.slice(2) : rest;
      const key = attrs.join("\u0000");
      if (op === "store") return set(key, stdin);
      if (op === "lookup") return items.has(key) ? { ok: true, stdout: items.get(key)!, stderr: "" } : miss;
      if (op === "clear") return items.delete(key) ? ok : miss;
    }
    if (tool === "security") {
      const key = `${flag(rest, "-a")}\u0000${flag(rest, "-s")}`;
      if (op === "add-generic-password") return set(key, flag(rest, "-w"));
      if (op === "find-generic-password") {
        if (!items.has(key)) return miss;
        // Without -w, `security` prints attributes only.
        return { ok: true, stdout: rest.includes("-w") ? items.get(key)! : "keychain: attributes", stderr: "" };
      }
      if (op === "delete-generic-password") return items.delete(key) ? ok : miss;
    }
    return fail;
  };
  const ok = { ok: true, stdout: "", stderr: "" };
  const miss = { ok: false, stdout: "", stderr: "" };
  const set = (key: string, value: string | undefined) => {
    if (!value) return { ok: false, stdout: "", stderr: "no value" };
    items.set(key, value);
    return ok;
  };
  return { run, calls, items };
}

function flag(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
}
