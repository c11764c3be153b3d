/**
 * The one place that reads the process environment. Everything else receives an `Env` so tests can
 * hand in their own.
 */
export type Env = Readonly<Record<string, string | undefined>>;

export function processEnv(): Env {
  return process.env;
}
