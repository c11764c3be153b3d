import { describe, expect, test } from "bun:test";
import { checkCommand } from "../../src/sandbox/commands.ts";

const ctx = { home: "/home/ada", fermixHome: "/home/ada/.fermix" };

/** One row per rule in src/sandbox/commands.ts, with the variants people (and models) actually write. */
const CATASTROPHIC: [string, string | string[]][] = [
  ["rm -rf /", "rm -rf /"],
  ["rm -fr /*", "rm -fr /*"],
  ["split flags", "rm -r -f /"],
  ["long flags", "rm --recursive --force /"],
  ["rm -r without -f", "rm -r /"],
  ["after --", "rm -rf -- /"],
  ["double slash", "rm -rf //"],
  ["quoted", 'rm -rf "/"'],
  ["the home as ~", "rm -rf ~"],
  ["the home as ~/", "rm -rf ~/"],
  ["everything in the home", "rm -rf ~/*"],
  ["$HOME", "rm -rf $HOME"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, literally
  ["${HOME}", "rm -rf ${HOME}/"],
  ['"$HOME"', 'rm -rf "$HOME"'],
  ["the home's literal path", "rm -rf /home/ada"],
  ["above the home", "rm -rf $HOME/.."],
  ["FERMIX_HOME", "rm -rf /home/ada/.fermix"],
  ["a system directory", "rm -rf /usr"],
  ["--no-preserve-root", "rm -rf --no-preserve-root /tmp/x"],
  ["with sudo", "sudo rm -rf /"],
  ["with env and a variable", "FOO=1 env -i rm -rf /"],
  ["absolute rm binary", "/bin/rm -rf /"],
  ["after &&", "cd /tmp && rm -rf /"],
  ["after a newline", "echo hi\nrm -rf /"],
  ["in sh -c", "sh -c 'rm -rf /'"],
  ["in bash -lc", 'bash -lc "rm -rf /*"'],
  ["in eval", "eval rm -rf /"],
  ["in a command substitution", 'echo "$(rm -rf /)"'],
  ["in backticks", "echo `rm -rf ~`"],
  ["argv form", ["rm", "-rf", "/"]],
  ["argv form through sh -c", ["/bin/sh", "-c", "rm -rf /"]],
  ["mkfs", "mkfs /dev/sda1"],
  ["mkfs.ext4", "mkfs.ext4 /dev/nvme0n1p1"],
  ["mke2fs", "sudo mke2fs /dev/sdb"],
  ["wipefs", "wipefs -a /dev/sda"],
  ["dd onto a disk", "dd if=/dev/zero of=/dev/sda bs=1M"],
  ["dd onto nvme", "dd if=x.img of=/dev/nvme0n1"],
  ["redirect onto a disk", "echo x > /dev/sda"],
  ["redirect glued", "cat image >/dev/sdb1"],
  ["tee onto a disk", "cat x | tee /dev/sda"],
  ["fork bomb", ":(){ :|:& };:"],
  ["fork bomb with spaces", ": () { : | : & } ; :"],
  ["named fork bomb", "bomb() { bomb | bomb & }; bomb"],
  ["chmod -R 777 /", "chmod -R 777 /"],
  ["chmod --recursive on the home", "chmod --recursive 000 ~"],
  ["chown -R on /", "chown -R nobody:nogroup /"],
  ["chgrp -R on /etc", "chgrp -R staff /etc"],
  ["shutdown", "shutdown -h now"],
  ["reboot", "sudo reboot"],
  ["halt", "halt"],
  ["poweroff", "poweroff"],
  ["systemctl reboot", "systemctl reboot"],
  ["init 0", "init 0"],
  ["kill -9 -1", "kill -9 -1"],
  ["kill -KILL -1", "kill -KILL -1"],
  ["kill -s KILL -1", "kill -s KILL -1"],
  ["kill -- -1", "kill -9 -- -1"],
];

const HARMLESS: [string, string | string[]][] = [
  ["rm -rf of a build dir", "rm -rf ./build"],
  ["rm -rf of a temp dir", "rm -rf /tmp/fermix-build"],
  ["rm -rf under the home", "rm -rf ~/projects/app/node_modules"],
  ["rm -rf of a relative glob", "rm -rf dist/*"],
  ["rm of / without -r", "rm -f /tmp/x"],
  ["rm -rf / quoted as an argument of echo", 'echo "rm -rf /"'],
  ["rm -rf / in single quotes for grep", "grep -r 'rm -rf /' ."],
  ["a commit message naming reboot", 'git commit -m "reboot the service later"'],
  ["chmod -R of a project", "chmod -R u+w ./dist"],
  ["chmod of / without -R", "chmod 755 /tmp/x"],
  ["dd to a file", "dd if=/dev/zero of=./disk.img bs=1M count=1"],
  ["dd to /dev/null", "dd if=x of=/dev/null"],
  ["redirect to /dev/null", "make > /dev/null 2>&1"],
  ["kill of one pid", "kill -9 1234"],
  ["kill -1 as HUP to one pid", "kill -1 1234"],
  ["mkdir", "mkdir -p build/out"],
  ["a function that is not a fork bomb", "f() { echo hi; }; f | cat"],
  ["argv form", ["ls", "-la", "/"]],
  ["a comment", "ls # rm -rf /"],
];

describe("catastrophic commands", () => {
  for (const [name, command] of CATASTROPHIC) {
    test(`refused: ${name}`, () => {
      const verdict = checkCommand(command, ctx);
      expect(verdict).toMatchObject({ ok: false, code: "catastrophic" });
      if (!verdict.ok) expect(verdict.reason).toStartWith("refused in every sandbox mode: ");
    });
  }
  for (const [name, command] of HARMLESS) {
    test(`allowed: ${name}`, () => {
      expect(checkCommand(command, ctx)).toEqual({ ok: true });
    });
  }

  test("a script full of substitutions is bounded work", () => {
    const started = performance.now();
    expect(checkCommand("echo $(".repeat(5000), ctx).ok).toBe(true);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
