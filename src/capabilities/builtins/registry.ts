import { prerendered } from "../prerendered-specs.ts";
import type { AnyTool } from "../tool.ts";
import { browser } from "./browser.ts";
import { contentSearch } from "./content-search.ts";
import { fileEdit } from "./file-edit.ts";
import { fileRead } from "./file-read.ts";
import { fileWrite } from "./file-write.ts";
import { generateImage } from "./generate-image.ts";
import { gitRead, gitWrite } from "./git.ts";
import { globSearch } from "./glob-search.ts";
import { JOB_TOOLS } from "./job-tools.ts";
import { MEMORY_TOOLS } from "./memory-tools.ts";
import { modelRoutingConfig } from "./model-routing-config.ts";
import { react } from "./react.ts";
import { requestDirectoryAccess } from "./request-directory-access.ts";
import { sendAttachment } from "./send-attachment.ts";
import { shell } from "./shell.ts";
import { SKILL_TOOLS } from "./skill-tools.ts";
import { subagents } from "./subagents.ts";
import { toolHelp } from "./tool-help.ts";

/** Every built-in tool, one line each; the order is the catalog's order. Their wire schemas are pre-rendered. */
export const BUILTIN_TOOLS: readonly AnyTool[] = prerendered([
  fileRead,
  fileWrite,
  fileEdit,
  globSearch,
  contentSearch,
  shell,
  gitRead,
  gitWrite,
  toolHelp,
  requestDirectoryAccess,
  ...MEMORY_TOOLS,
  subagents,
  modelRoutingConfig,
  generateImage,
  browser,
  ...SKILL_TOOLS,
  ...JOB_TOOLS,
  // Channel turns only: the registry's surface offers them where the chat's platform supports them.
  sendAttachment,
  react,
]);
