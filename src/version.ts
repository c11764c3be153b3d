// build.ts defines FERMIX_VERSION; running from source falls back to a dev marker.
declare const FERMIX_VERSION: string | undefined;

export const VERSION: string = typeof FERMIX_VERSION === "string" ? FERMIX_VERSION : "0.1.0-dev";

// The release target this binary was compiled for (`linux-x86_64`, …); absent from source, where
// `hostTarget()` in src/release/targets.ts answers instead.
declare const FERMIX_TARGET: string | undefined;

export const BUILD_TARGET: string | undefined = typeof FERMIX_TARGET === "string" ? FERMIX_TARGET : undefined;
