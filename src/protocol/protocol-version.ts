/**
 * The protocol's version, apart from every schema so that a client can name it without building any. Paths are
 * versioned (`/v1/...`); the `x-fermix-protocol` header lets either side refuse a partner it cannot speak to.
 */
export const PROTOCOL_VERSION = 1;
/** The oldest client protocol this daemon still serves. */
export const MIN_CLIENT_PROTOCOL = 1;
export const PROTOCOL_HEADER = "x-fermix-protocol";
