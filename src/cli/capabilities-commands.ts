import { commandProfileTools } from "../capabilities/command-profiles.ts";
import type { Config } from "../config/schema.ts";

/** `fermix capabilities` rows for the [sandbox.commands] profiles: the cmd_<name> tools an operator turn gets. */
export function commandProfileRows(config: Config) {
  return commandProfileTools(config).map((tool) => ({
    name: tool.name,
    kind: "command" as const,
    description: tool.description,
    policy: tool.policy,
    read_only: tool.readOnly,
  }));
}
