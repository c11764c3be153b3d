/**
 * The vendors' command lines, exactly as their CLIs take them (facts §4). Pure: paths are already checked and
 * canonical, files (last message, output schema) already placed in the run's folder.
 */

export type CodexRequest = {
  prompt: string;
  cwd: string;
  model?: string;
  effort?: string;
  sandbox?: "read-only" | "workspace-write";
  addDirs?: string[];
  ephemeral?: boolean;
  profile?: string;
  images?: string[];
  /** The thread to continue (`codex exec resume <thread>`); -C, -s, --add-dir and -p are refused with it. */
  resume?: string;
};

export function codexArgs(req: CodexRequest, files: { lastMessage: string; outputSchema?: string }): string[] {
  const args = req.resume
    ? ["exec", "resume", req.resume, "--json", "--skip-git-repo-check"]
    : ["exec", "--json", "--skip-git-repo-check", "-C", req.cwd];
  if (req.model) args.push("-m", req.model);
  if (req.effort) args.push("-c", `model_reasoning_effort=${req.effort}`);
  if (!req.resume) {
    if (req.sandbox) args.push("-s", req.sandbox);
    if (req.profile) args.push("-p", req.profile);
    for (const dir of req.addDirs ?? []) args.push("--add-dir", dir);
  }
  for (const image of req.images ?? []) args.push("-i", image);
  if (files.outputSchema) args.push("--output-schema", files.outputSchema);
  if (req.ephemeral) args.push("--ephemeral");
  args.push("-o", files.lastMessage, req.prompt);
  return args;
}

/** What Claude Code may never edit in a delegated run: other agents' settings folders. */
export const CLAUDE_PROTECTED_EDITS = [
  "Edit(.codex/**)",
  "Edit(**/.codex/**)",
  "Edit(.agents/**)",
  "Edit(**/.agents/**)",
];

export type ClaudeRequest = {
  prompt: string;
  model?: string;
  effort?: string;
  permissionMode?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
  appendSystemPrompt?: string;
  addDirs?: string[];
  maxTurns?: number;
  /** A JSON Schema, as JSON text. */
  jsonSchema?: string;
  resume?: string;
  continue?: boolean;
};

export function claudeArgs(req: ClaudeRequest): string[] {
  const args = ["-p", "--output-format", "stream-json", "--verbose"];
  if (req.model) args.push("--model", req.model);
  if (req.effort) args.push("--effort", req.effort);
  if (req.permissionMode) args.push("--permission-mode", req.permissionMode);
  if (req.allowedTools?.length) args.push("--allowed-tools", req.allowedTools.join(","));
  args.push("--disallowed-tools", [...(req.disallowedTools ?? []), ...CLAUDE_PROTECTED_EDITS].join(","));
  if (req.appendSystemPrompt) args.push("--append-system-prompt", req.appendSystemPrompt);
  for (const dir of req.addDirs ?? []) args.push("--add-dir", dir);
  if (req.maxTurns !== undefined) args.push("--max-turns", String(req.maxTurns));
  if (req.jsonSchema) args.push("--json-schema", req.jsonSchema);
  if (req.continue) args.push("--continue");
  else if (req.resume) args.push("--resume", req.resume);
  args.push("--", req.prompt);
  return args;
}
