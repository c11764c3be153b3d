/**
 * One error type for the whole program. Boundaries (the daemon's error handler and the CLI's
 * formatter) map `code` to an HTTP status or an exit code; everything else lets it propagate.
 */
export class FermixError<Data = Record<string, unknown>> extends Error {
  readonly code: string;
  readonly data: Data;

  constructor(code: string, message: string, data?: Data, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "FermixError";
    this.code = code;
    this.data = (data ?? {}) as Data;
  }

  toJSON(): SerializedError {
    return { code: this.code, message: this.message, data: this.data as Record<string, unknown> };
  }
}

export type SerializedError = { code: string; message: string; data: Record<string, unknown> };

/** `const ConfigInvalid = defineError("config_invalid")` then `throw ConfigInvalid("…", { file })`. */
export function defineError<Data extends Record<string, unknown> = Record<string, unknown>>(code: string) {
  const make = (message: string, data?: Data, options?: { cause?: unknown }) =>
    new FermixError<Data>(code, message, data, options);
  make.code = code;
  make.is = (err: unknown): err is FermixError<Data> => err instanceof FermixError && err.code === code;
  return make;
}

export function isFermixError(err: unknown): err is FermixError {
  return err instanceof FermixError;
}

/** Rebuilds an error that crossed the socket so the CLI can format it like a local one. */
export function fromSerialized(err: SerializedError): FermixError {
  return new FermixError(err.code, err.message, err.data);
}
