import type { CommandDef } from "citty";

/** A command and the words that named it, from the root (`fermix`) down. */
export type Chain = Array<{ name: string; cmd: CommandDef<any> }>;
