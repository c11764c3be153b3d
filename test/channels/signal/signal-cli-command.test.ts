import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listAccounts } from "../../../src/channels/signal/signal-cli-command.ts";
import { startFakeSignalCli } from "../../fake/signal-cli.ts";
import { cleanupAfterEach } from "../../fixture/cleanup.ts";

/* `signal-cli -o json listAccounts`, the one-shot child setup runs: its output is read up to a cap. */

const defer = cleanupAfterEach();
const env = { PATH: "/usr/bin:/bin", HOME: tmpdir() };

describe("listAccounts", () => {
  test("reads the accounts signal-cli lists", async () => {
    const fake = await startFakeSignalCli({ account: "+15550000001", registered: ["+15550000001", "+15550000002"] });
    defer(() => fake.close());
    expect(listAccounts({ cliPath: fake.cliPath, env })).toEqual({
      ok: true,
      accounts: ["+15550000001", "+15550000002"],
    });
  });

  test("output past the cap is refused unparsed, saying so", () => {
    const dir = mkdtempSync(join(tmpdir(), "fermix-signal-cmd-"));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const cli = join(dir, "signal-cli");
    // Two MB of an opening bracket: no JSON parser gets to see it.
    writeFileSync(cli, "#!/bin/sh\nhead -c 2000000 /dev/zero | tr '\\0' '['\n");
    chmodSync(cli, 0o755);
    const listed = listAccounts({ cliPath: cli, env });
    expect(listed).toEqual({ ok: false, detail: `${cli} listAccounts wrote more than 1048576 bytes; not read` });
  });
});
