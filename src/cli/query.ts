import { asFermixError, EXIT, exitCodeFor, reportError } from "./exit.ts";
import { jsonEnvelope } from "./json-envelope.ts";
import { writeOut } from "./output.ts";

/**
 * The shape every query verb shares: ask something, print it as text or as the typed `--json`
 * envelope, and map a failure to the same envelope or to `fermix: <reason>` with its exit code.
 */
export async function answerQuery<T>(opts: {
  json: boolean;
  query: () => Promise<T>;
  render: (result: T) => string;
  toJson?: (result: T) => unknown;
}): Promise<number> {
  try {
    const result = await opts.query();
    await writeOut(
      opts.json
        ? `${jsonEnvelope({ ok: true, result: opts.toJson ? opts.toJson(result) : result })}\n`
        : opts.render(result),
    );
    return EXIT.ok;
  } catch (err) {
    if (!opts.json) return reportError(err);
    const error = asFermixError(err);
    await writeOut(`${jsonEnvelope({ ok: false, error })}\n`);
    return exitCodeFor(error);
  }
}
