/** The log's levels, lowest first; apart from log.ts so the stderr sink it loads can name them without importing it. */
export type LogLevel = "debug" | "info" | "warn" | "error";
