/**
 * The whole environment a sandboxed command gets. Nothing is inherited from fermix's own process, whose
 * environment holds provider keys and tokens; a command that needs a secret must be given it on purpose.
 */
const SYSTEM_PATH: Partial<Record<NodeJS.Platform, string>> = {
  linux: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  darwin: "/opt/homebrew/bin:/opt/homebrew/sbin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
};

export function childEnv(opts: {
  home: string;
  platform: NodeJS.Platform;
  tmpdir: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  return {
    PATH: SYSTEM_PATH[opts.platform] ?? SYSTEM_PATH.linux!,
    HOME: opts.home,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TERM: "dumb",
    TMPDIR: opts.tmpdir,
    ...opts.extra,
  };
}

/** The PATH used when fermix itself runs a helper (the bwrap self-test). */
export function systemPath(platform: NodeJS.Platform): string {
  return SYSTEM_PATH[platform] ?? SYSTEM_PATH.linux!;
}
