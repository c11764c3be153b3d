import { DEFAULT_CLI_PATH, findSignalCli, INSTALL_HINT, listAccounts } from "../channels/signal/signal-cli-command.ts";
import { UsageError } from "../cli/exit.ts";
import { loadConfig } from "../config/load.ts";
import { editConfigText } from "../config/sandbox-edit.ts";
import type { Config } from "../config/schema.ts";
import { FermixError } from "../error.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup.ts";
import { setKey } from "./config-edit.ts";
import { createPrompter, type Prompter } from "./prompt.ts";
import { type Checked, orUsage } from "./validate.ts";

const TABLE = "fermix_channels.signal";
const LINK_HINT =
  "register a number for fermix in signal-cli (signal-cli -a +NUMBER register, then verify CODE) or link signal-cli to an account on another phone (signal-cli link -n fermix, and scan the sgnl:// QR code with Signal → Settings → Linked devices)";

/**
 * `fermix setup --channel signal`: where signal-cli is, the account it has registered or linked that fermix
 * answers as, and the owner's own number; signal-cli is asked (`listAccounts`, local files only) that it has the
 * account before anything is written. Then [fermix_channels.signal] gets enabled, account, owner_user_id (and
 * cli_path when it is not plain `signal-cli` on PATH). There is no secret: the keys live in signal-cli's data.
 */
export async function runSignalSetup(flags: ChannelSetupFlags, deps: ChannelSetupDeps): Promise<void> {
  const { paths, io, env } = deps;
  if (flags.tokenStdin) throw UsageError("setup: Signal has no bot token; --bot-token-stdin goes with telegram");
  const config = await loadConfig(paths.config);
  const block = ((config.fermix_channels ?? {}) as Record<string, Record<string, unknown> | undefined>).signal ?? {};
  const ask = io.isTTY && !flags.nonInteractive ? createPrompter(io) : undefined;
  if (ask) {
    await io.write(
      "fermix setup --channel signal: fermix speaks for a Signal account through signal-cli — use a number of its own, not yours — and answers your own number as the owner.\n",
    );
  }

  const cliPath = await cliPathAnswer(flags, (block.cli_path as string | undefined) ?? DEFAULT_CLI_PATH, env, ask);
  const found = findSignalCli(cliPath, env);
  if (!found && !flags.skipTest) {
    throw new FermixError(
      "setup_probe_failed",
      `signal-cli not found (${cliPath}): ${INSTALL_HINT}\nnothing was written (--skip-test saves the answers untested)`,
    );
  }
  const local =
    found && !flags.skipTest
      ? listAccounts({ cliPath, dataDir: block.data_dir as string | undefined, env })
      : undefined;
  if (local && !local.ok) {
    throw new FermixError("setup_probe_failed", `${local.detail}\nnothing was written; fix that, or pass --skip-test`);
  }
  const registered = local?.ok ? local.accounts : undefined;
  const account = await addressAnswer({
    given: flags.account,
    flag: "--account",
    current: (block.account as string | undefined) ?? (registered?.length === 1 ? registered[0] : undefined),
    question: `The account fermix answers as, as signal-cli has it${registered?.length ? ` (${registered.join(", ")})` : ""}`,
    ask,
  });
  const owner = await addressAnswer({
    given: flags.ownerUserId,
    flag: "--owner-user-id",
    current: block.owner_user_id as string | undefined,
    question: "Your own Signal number (messages from it run as the owner)",
    ask,
  });
  if (owner === account) {
    throw UsageError(
      "setup: the owner and the account are the same number; fermix ignores what an account sends itself (sync messages). Give fermix a number of its own and message it from yours",
    );
  }

  if (flags.skipTest) await io.write("Not checking signal-cli (--skip-test).\n");
  else if (registered && !registered.includes(account)) {
    throw new FermixError(
      "setup_probe_failed",
      `signal-cli (${found}) has no account ${account}${registered.length ? `; it has ${registered.join(", ")}` : ""}: ${LINK_HINT}\nnothing was written; run fermix setup --channel signal again once it is there`,
    );
  } else await io.write(`ok: signal-cli at ${found} has the account ${account}\n`);

  const changes: SignalChanges = { account, owner, ...(cliPath !== DEFAULT_CLI_PATH ? { cliPath } : {}) };
  const { changed } = editConfigText(
    paths.config,
    TABLE,
    (text) => {
      const edited = applySignal(text, changes, paths.config);
      return edited === text ? null : edited;
    },
    (c) => signalApplied(c, changes),
  );
  await io.write(
    [
      "",
      changed
        ? `config: updated ${paths.config} ([fermix_channels.signal] enabled, account ${account}, owner ${owner})`
        : `config: ${paths.config} already holds these answers; unchanged`,
      "",
      "Next:",
      "  fermix restart            (the daemon starts signal-cli when it starts)",
      "  fermix channels status",
      `  then message ${account} from your phone`,
      "",
    ].join("\n"),
  );
}

/** A Signal address as signal-cli writes them: +<country code><number>, or an account's UUID. */
export function checkSignalAddress(answer: string): Checked<string> {
  const address = answer.trim().replace(/[\s()-]/g, "");
  if (/^\+[1-9]\d{5,17}$/.test(address)) return { ok: true, value: address };
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(answer.trim())) {
    return { ok: true, value: answer.trim().toLowerCase() };
  }
  return {
    ok: false,
    error: `"${answer.trim()}" is not a Signal number: write it in international form with its country code, such as +15551234567`,
  };
}

async function cliPathAnswer(
  flags: ChannelSetupFlags,
  current: string,
  env: ChannelSetupDeps["env"],
  ask: Prompter | undefined,
): Promise<string> {
  if (flags.cliPath !== undefined) {
    const path = flags.cliPath.trim();
    if (!path) throw UsageError("setup: --cli-path needs the path of signal-cli");
    return path;
  }
  if (!ask || findSignalCli(current, env)) return current;
  for (;;) {
    await ask.say(`signal-cli was not found (${current}). ${INSTALL_HINT}.\n`);
    const typed = (await ask.line("Path to signal-cli (Enter to stop here): ")).trim();
    if (!typed) return current;
    if (findSignalCli(typed, env)) return typed;
    current = typed;
  }
}

async function addressAnswer(q: {
  given: string | undefined;
  flag: string;
  current: string | undefined;
  question: string;
  ask: Prompter | undefined;
}): Promise<string> {
  if (q.given !== undefined) return orUsage(checkSignalAddress(q.given), q.flag);
  if (q.ask) {
    for (;;) {
      const typed = (await q.ask.line(`${q.question}${q.current ? ` [${q.current}]` : ""}: `)).trim();
      const checked = checkSignalAddress(typed || q.current || "");
      if (checked.ok) return checked.value;
      await q.ask.say(`${checked.error}\n`);
    }
  }
  if (q.current) return orUsage(checkSignalAddress(q.current), q.flag);
  throw UsageError(`setup: give ${q.flag} +NUMBER (${q.question.toLowerCase()})`);
}

type SignalChanges = { account: string; owner: string; cliPath?: string };

function applySignal(text: string, changes: SignalChanges, file: string): string {
  let out = setKey(text, TABLE, "enabled", true, file);
  out = setKey(out, TABLE, "account", changes.account, file);
  out = setKey(out, TABLE, "owner_user_id", changes.owner, file);
  if (changes.cliPath !== undefined) out = setKey(out, TABLE, "cli_path", changes.cliPath, file);
  return out;
}

function signalApplied(config: Config, changes: SignalChanges): boolean {
  const block = config.fermix_channels?.signal;
  return (
    block?.enabled === true &&
    block.account === changes.account &&
    block.owner_user_id === changes.owner &&
    (changes.cliPath === undefined || block.cli_path === changes.cliPath)
  );
}
