import { basename, posix } from "node:path";
import { isWithin } from "./_path.ts";
import { readShell } from "./shell-words.ts";
import type { Denial } from "./types.ts";

/**
 * Commands refused in every mode, because no sandbox root makes them safe: they destroy the system or
 * the home, or take the machine down. This is a list of known shapes, not a parser of all shell; the
 * bubblewrap jail is what limits everything else. Each rule has a row in test/sandbox/commands.test.ts.
 *
 * - rm -r/-R/--recursive of `/`, `/*`, a top-level system directory, the home (`~`, `$HOME`, its path),
 *   an ancestor of the home, or FERMIX_HOME; and any rm with --no-preserve-root
 * - chmod/chown/chgrp -R of the same targets
 * - mkfs, mkfs.*, mke2fs, mkdosfs, mkntfs, wipefs (formatting a filesystem)
 * - dd of=/dev/<disk>; `> /dev/<disk>`; tee, cp or shred onto a disk device
 * - fork bombs: `:(){ :|:& };:` and the same shape under any name
 * - shutdown, reboot, halt, poweroff; init/telinit 0 or 6; systemctl poweroff/reboot/halt/kexec
 * - kill with pid -1 (every process the user may signal), e.g. `kill -9 -1`
 * Wrappers are looked through (sudo, doas, env, nice, nohup, time, timeout, xargs, command, exec,
 * builtin, busybox), as are `sh -c '…'`, `eval …` and command substitutions.
 */
export type CommandContext = { home: string; fermixHome: string };

/** Directories whose recursive removal or re-permissioning ruins the machine (Linux and macOS names). */
const TOP_LEVEL = (
  "/bin /boot /dev /etc /home /lib /lib32 /lib64 /opt /proc /root /sbin /srv /sys /usr /var " +
  "/Users /System /Library /Applications /private /Volumes"
).split(" ");
const DISK = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper\/|loop|nbd|sr)/;
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "fish"]);
/** Commands that run the rest of their arguments as a command. */
const WRAPPERS = new Set(
  "sudo doas env nice nohup time timeout xargs command exec builtin busybox stdbuf ionice".split(" "),
);
const POWER = new Set(["shutdown", "reboot", "halt", "poweroff"]);
const FORMAT = /^(mkfs(\..+)?|mke2fs|mkdosfs|mkntfs|wipefs)$/;
/** The same function called twice in a pipe and backgrounded, inside its own body (bounded: no backtracking blow-up). */
const FORK_BOMB = /([\w:.-]{1,64})\s*\(\s*\)\s*\{[^}]{0,100}?\1\s*\|\s*&?\s*\1\s*&/;
/** Bounds the work on a hostile script full of `$(`. */
const MAX_SCRIPTS = 64;

export function checkCommand(command: string | string[], ctx: CommandContext): { ok: true } | Denial {
  const queue: string[] = [];
  const found = Array.isArray(command)
    ? (judgeArgv(command, ctx, queue) ?? judgeScripts(queue, ctx))
    : judgeScripts([command], ctx);
  if (!found) return { ok: true };
  const shown = Array.isArray(command) ? command.join(" ") : command;
  return {
    ok: false,
    code: "catastrophic",
    reason: `refused in every sandbox mode: ${found} (command: ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown}). Run it yourself outside fermix if you really mean it.`,
  };
}

function judgeScripts(queue: string[], ctx: CommandContext): string | null {
  const seen = new Set<string>();
  while (queue.length && seen.size < MAX_SCRIPTS) {
    const text = queue.shift()!;
    if (seen.has(text)) continue;
    seen.add(text);
    if (FORK_BOMB.test(text)) return "a fork bomb";
    const reading = readShell(text);
    for (const argv of reading.commands) {
      const found = judgeArgv(argv, ctx, queue);
      if (found) return found;
    }
    queue.push(...reading.substitutions);
  }
  return null;
}

/** Judges one simple command; nested scripts (sh -c, eval) are queued for judgeScript. */
function judgeArgv(argv: string[], ctx: CommandContext, nested: string[]): string | null {
  const redirect = argv.findIndex((w, i) => /^>/.test(w) && DISK.test(argv[i + 1] ?? ""));
  if (redirect !== -1) return `writing straight onto the disk device ${argv[redirect + 1]}`;
  const words = unwrap(argv.filter((w, i) => !/^[<>]/.test(w) && !/^[<>]/.test(argv[i - 1] ?? "")));
  if (!words.length) return null;
  const name = basename(words[0]!);
  const args = words.slice(1);
  if (SHELLS.has(name)) {
    const flag = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
    if (flag !== -1 && args[flag + 1] !== undefined) nested.push(args[flag + 1]!);
    return null;
  }
  if (name === "eval") {
    nested.push(args.join(" "));
    return null;
  }
  if (name === "rm") return judgeRecursive("rm", args, ctx, true);
  if (name === "chmod" || name === "chown" || name === "chgrp") return judgeRecursive(name, args, ctx, false);
  if (FORMAT.test(name)) return `formatting a filesystem (${name})`;
  if (name === "dd") {
    const target = args.find((a) => a.startsWith("of="))?.slice(3);
    if (target && DISK.test(target)) return `dd onto the disk device ${target}`;
  }
  if (name === "tee" || name === "cp" || name === "shred") {
    const disk = args.find((a) => DISK.test(a));
    if (disk) return `${name} onto the disk device ${disk}`;
  }
  if (POWER.has(name)) return `${name} takes the machine down`;
  if ((name === "init" || name === "telinit") && (args[0] === "0" || args[0] === "6")) {
    return `${name} ${args[0]} takes the machine down`;
  }
  if (name === "systemctl" && args.some((a) => ["poweroff", "reboot", "halt", "kexec"].includes(a))) {
    return "systemctl takes the machine down";
  }
  if (name === "kill" && killsEveryone(args)) return "kill -1 signals every process you own";
  return null;
}

/** rm/chmod/chown -R against a target whose loss ruins the system or the home. */
function judgeRecursive(name: string, args: string[], ctx: CommandContext, isRm: boolean): string | null {
  if (isRm && args.includes("--no-preserve-root")) return "rm --no-preserve-root";
  const flags = args.filter((a) => a.startsWith("-") && a !== "--");
  const recursive = flags.some((f) => f === "--recursive" || (/^-[a-zA-Z]+$/.test(f) && /[rR]/.test(f)));
  if (!recursive) return null;
  const target = args.find((a) => !a.startsWith("-") && isCatastrophicTarget(a, ctx));
  return target ? `recursive ${name} of ${target}` : null;
}

function isCatastrophicTarget(word: string, ctx: CommandContext): boolean {
  let path = word.replace(/^(~|\$HOME|\$\{HOME\})(?=\/|$)/, ctx.home);
  if (!path.startsWith("/")) return false;
  // `/*`, `/.`, `//` and trailing slashes all name the same directory for this purpose.
  path = posix.normalize(path.replace(/(\/\*|\/\.?)+$/, "") || "/");
  if (path === "/" || path === "." || TOP_LEVEL.includes(path)) return true;
  return isWithin(ctx.home, path) || isWithin(ctx.fermixHome, path);
}

function unwrap(argv: string[]): string[] {
  let words = argv;
  for (let guard = 0; guard < 8 && words.length; guard++) {
    const first = basename(words[0]!);
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) {
      words = words.slice(1);
    } else if (WRAPPERS.has(first)) {
      words = words.slice(1);
      // Options of the wrapper (and a duration for timeout, a value for -u/-n style options).
      while (words.length && (words[0]!.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!))) {
        const option = words[0]!;
        words = words.slice(1);
        if (/^-[ugnCcs]$/.test(option) && words.length) words = words.slice(1);
      }
      if (first === "timeout" && words.length && /^\d/.test(words[0]!)) words = words.slice(1);
      if (first === "busybox" && words.length && SHELLS.has(words[0]!)) break;
    } else {
      break;
    }
  }
  return words;
}

function killsEveryone(args: string[]): boolean {
  let rest = args;
  if (rest[0] === "-s" || rest[0] === "-n") rest = rest.slice(2);
  else if (rest[0] && rest[0] !== "--" && /^-[A-Za-z0-9]+$/.test(rest[0]) && rest.length > 1) rest = rest.slice(1);
  if (rest[0] === "--") rest = rest.slice(1);
  return rest.includes("-1");
}
