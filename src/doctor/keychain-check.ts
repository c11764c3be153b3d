import { statSync } from "node:fs";
import { type DoctorContext, type DoctorRow, defineCheck } from "./check.ts";

/**
 * Where "@keyring" secrets go (config/secret-store.ts): the OS keyring when one answers, else the file
 * store — one 0600 file per secret in `$FERMIX_HOME/secrets` (0700). Both work; the row says which, and
 * warns when a keyring is installed but not answering (secrets then land in files without anyone deciding so).
 */
export const keychainCheck = defineCheck({
  id: "keychain",
  async run(ctx) {
    const loose = looseSecretsDir(ctx);
    if (loose) return [loose];
    const fileStore = `the file store, ${ctx.display(ctx.paths.secrets)} (0700)`;
    if (ctx.config?.fermix_core?.secret_store === "file") {
      return [ok(fileStore, '[fermix_core] secret_store = "file" asks for it')];
    }
    if (ctx.platform === "darwin") return [macKeychain(ctx, fileStore)];
    if (ctx.platform !== "linux") return [ok(fileStore, `no OS keyring support on ${ctx.platform}`)];
    if (!ctx.which("secret-tool")) return [ok(fileStore, "no OS keyring: secret-tool is not installed")];
    // A lookup of an entry that never exists: it reads no real secret, and a Secret Service that answers
    // says "not found" with exit 1 and nothing on stderr, while a missing D-Bus or keyring daemon complains.
    const probe = ctx.run(["secret-tool", "lookup", "service", "fermix-doctor", "account", "fermix", "env", "PROBE"]);
    if (probe.ok || !probe.stderr.trim()) return [ok("the OS keyring (Secret Service, through secret-tool)")];
    return [
      {
        id: "keychain",
        title: "keychain",
        status: "warn",
        detail: `secret-tool is installed but no Secret Service answers (${firstLine(probe.stderr)}); secrets go to ${fileStore}`,
        fix: 'unlock or start your keyring (gnome-keyring, KeePassXC), or set secret_store = "file" under [fermix_core] to keep the file store',
      },
    ];
  },
});

function macKeychain(ctx: DoctorContext, fileStore: string): DoctorRow {
  if (!ctx.which("security")) return ok(fileStore, "the security tool is missing");
  const probe = ctx.run(["security", "default-keychain"]);
  if (probe.ok) return ok("the macOS login keychain (through security)");
  return {
    id: "keychain",
    title: "keychain",
    status: "warn",
    detail: `no default keychain answers (${firstLine(probe.stderr)}); secrets go to ${fileStore}`,
    fix: 'open Keychain Access and set a default keychain, or set secret_store = "file" under [fermix_core]',
  };
}

/** The file store must not be listable by others: its file names say which services you hold keys for. */
function looseSecretsDir(ctx: DoctorContext): DoctorRow | undefined {
  let mode: number;
  try {
    mode = statSync(ctx.paths.secrets).mode;
  } catch {
    return undefined;
  }
  if (!(mode & 0o077)) return undefined;
  const dir = ctx.display(ctx.paths.secrets);
  return {
    id: "keychain",
    title: "keychain",
    status: "warn",
    detail: `${dir} is open to other users (mode ${(mode & 0o777).toString(8)})`,
    fix: `chmod 700 ${dir}`,
  };
}

function ok(where: string, why?: string): DoctorRow {
  return {
    id: "keychain",
    title: "keychain",
    status: "ok",
    detail: `secrets are kept in ${where}${why ? `; ${why}` : ""}`,
  };
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.slice(0, 160) || "no reason given";
}
