/**
 * Where releases are published. `fermix upgrade` and install.sh read `releases.json` from here unless told
 * otherwise (FERMIX_RELEASES_URL); `bun build.ts --release` writes artifact URLs under it unless given
 * `--base-url`. install.sh carries the same manifest URL as a literal (a test keeps the two equal).
 */
export const RELEASE_BASE_URL = "https://get.fermix.dev";

export const RELEASES_MANIFEST_URL = `${RELEASE_BASE_URL}/releases.json`;

/** The release public key's file at the root of a release location; each artifact's `cert_url` names it. */
export const RELEASE_PUBLIC_KEY_FILE = "fermix-release.pub.pem";

/** `<base>/releases.json` for a base URL given with or without a trailing slash. */
export function manifestUrlFor(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/releases.json`;
}
