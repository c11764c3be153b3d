/** Kept as plain text so `fermix` with no arguments prints usage without loading any command. */
export const USAGE = `fermix — a personal AI agent in one binary

Usage: fermix <command> [options]

Commands:
  ask [words…]     Ask once and print the answer (alias: chat). Reads piped stdin too.
  run              Run the daemon in the foreground (what the service starts)
  status           Show whether the daemon runs: pid, version, uptime
  health           Check that the daemon answers
  start            Start the daemon (through the service when one is installed)
  stop             Stop the running daemon
  restart          Stop, then start the daemon (after an upgrade or a config change)
  service          install | uninstall | status [--user|--system]
  setup            Choose and test a provider, personalise, install the service
  doctor           Check config, providers, daemon, service, keychain, plugins, disk [--full] [--json]
  upgrade          Upgrade this binary to the newest release [--check] [--version V]
  capabilities     List the tools the agent can use (--kind K, --json)
  skills           list [--json] | view NAME [FILE] | reload
  memory           review [--now] | revisions [NAME] | restore ID
  plugins          list | catalog | install NAME | enable NAME | auth set NAME | … (fermix plugins --help)
  sandbox          status | explain PATH | mode strict|standard|open
  grant path P     Let the agent's tools use directory P
  revoke path P    Take directory P back
  help             Show this help

Options:
  --version        Print the version
  -h, --help       Show help (also: fermix <command> --help)

Examples:
  fermix ask "what is a monad, in two sentences?"
  git diff | fermix ask "write the commit message"
  fermix ask --json "ping" | jq -r .response
`;
