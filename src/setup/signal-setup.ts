import { DEFAULT_CLI_PATH, findSignalCli, INSTALL_HINT, listAccounts } from "../channels/signal/signal-cli-command.ts";
import { UsageError } from "../cli/exit.ts";
import { FermixError } from "../error.ts";
import {
  askAnswer,
  configLine,
  openChannelSetup,
  refuseFlags,
  report,
  writeChannelKeys,
} from "./_channel-setup-flow.ts";
import type { ChannelSetupDeps, ChannelSetupFlags } from "./channel-setup-contract.ts";
import type { Prompter } from "./prompt.ts";
import type { Checked } from "./validate.ts";

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
  refuseFlags(flags, [[["tokenStdin"], "setup: Signal has no bot token; --bot-token-stdin goes with telegram"]]);
  const { block, ask } = await openChannelSetup("signal", flags, deps);
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
  const account = await addressAnswer(
    "--account",
    flags.account,
    (block.account as string | undefined) ?? (registered?.length === 1 ? registered[0] : undefined),
    `The account fermix answers as, as signal-cli has it${registered?.length ? ` (${registered.join(", ")})` : ""}`,
    ask,
  );
  const owner = await addressAnswer(
    "--owner-user-id",
    flags.ownerUserId,
    block.owner_user_id,
    "Your own Signal number (messages from it run as the owner)",
    ask,
  );
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

  const changed = writeChannelKeys(
    "signal",
    {
      enabled: true,
      account,
      owner_user_id: owner,
      cli_path: cliPath !== DEFAULT_CLI_PATH ? cliPath : undefined,
    },
    paths.config,
  );
  await report(deps, [configLine(changed, paths.config, "signal", `enabled, account ${account}, owner ${owner}`)], [], {
    restart: "the daemon starts signal-cli when it starts",
    firstMessage: `message ${account} from your phone`,
  });
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

function addressAnswer(
  flag: string,
  given: string | undefined,
  current: unknown,
  question: string,
  ask: Prompter | undefined,
): Promise<string> {
  const missing = `setup: give ${flag} +NUMBER (${question.toLowerCase()})`;
  return askAnswer({ given, flag, current, question, check: checkSignalAddress, missing, recheck: true }, ask);
}
