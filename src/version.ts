// build.ts defines FERMIX_VERSION; running from source falls back to a dev marker.
declare const FERMIX_VERSION: string | undefined;

export const VERSION: string = typeof FERMIX_VERSION === "string" ? FERMIX_VERSION : "0.1.0-dev";
