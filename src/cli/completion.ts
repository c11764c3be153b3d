import { defineCommand } from "./command.ts";
import bashScript from "./completion.bash" with { type: "text" };
import { UsageError } from "./exit.ts";
import { writeOut } from "./output.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;

export default defineCommand({
  meta: {
    name: "completion",
    description: "Print the shell completion script for bash, zsh or fish",
    details:
      "install.sh and Homebrew install it for you. The script asks `fermix complete` for candidates, so they follow this binary: commands, options, plugin and skill names, recent sessions.",
    examples: [
      "source <(fermix completion bash)",
      "fermix completion zsh > ~/.local/share/zsh/site-functions/_fermix",
      "fermix completion fish > ~/.config/fish/completions/fermix.fish",
    ],
  },
  args: { shell: { type: "positional", required: true, valueHint: "SHELL", description: "bash, zsh or fish" } },
  async run({ args }) {
    const shell = args.shell as (typeof SHELLS)[number];
    if (!SHELLS.includes(shell)) throw UsageError(`completion: SHELL is one of ${SHELLS.join(", ")} (got "${shell}")`);
    // Our own small script for bash: tab's relies on the bash-completion package (_get_comp_words_by_ref).
    if (shell === "bash") {
      await writeOut(bashScript);
      return 0;
    }
    // tab's zsh and fish scripts; they ask `fermix complete -- WORDS…` for the candidates.
    const [{ script }, { capture }] = await Promise.all([import("@bomb.sh/tab"), import("./_completion.ts")]);
    await writeOut(capture(() => script(shell, "fermix", "fermix")));
    return 0;
  },
});
