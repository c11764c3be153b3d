import { createPublicKey } from "node:crypto";

/** The line in install.sh that the release step replaces with the release public key (PEM). */
export const KEY_MARKER = "# @FERMIX_RELEASE_PUBLIC_KEY@";

const DEFAULT_URL_LINE = /^default_releases_url='[^'\n]*'$/m;

/**
 * install.sh as published in a release root: the release public key pinned in place of KEY_MARKER (so cosign or
 * openssl can check signatures against a key that did not come from the download server), and the default
 * manifest URL set to the release location it is published in.
 */
export function renderInstallScript(source: string, opts: { publicKeyPem: string; manifestUrl: string }): string {
  const pem = createPublicKey(opts.publicKeyPem).export({ type: "spki", format: "pem" }).toString().trim();
  const lines = source.split("\n");
  const markers = lines.filter((line) => line === KEY_MARKER).length;
  if (markers !== 1) throw new Error(`install.sh must have exactly one "${KEY_MARKER}" line (found ${markers})`);
  if (!DEFAULT_URL_LINE.test(source)) throw new Error("install.sh has no default_releases_url='…' line");
  if (/['\s\\$`]/.test(opts.manifestUrl))
    throw new Error(`the manifest URL ${opts.manifestUrl} cannot be quoted in sh`);
  return lines
    .map((line) => (line === KEY_MARKER ? pem : line))
    .join("\n")
    .replace(DEFAULT_URL_LINE, () => `default_releases_url='${opts.manifestUrl}'`);
}

/** The manifest URL an install.sh defaults to (the source tree's must equal location.ts's). */
export function installScriptDefaultUrl(script: string): string | undefined {
  return DEFAULT_URL_LINE.exec(script)?.[0].slice("default_releases_url='".length, -1);
}
