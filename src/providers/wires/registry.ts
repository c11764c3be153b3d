import type { Wire, WireId } from "../types.ts";
import { anthropicWire } from "./anthropic.ts";
import { openaiChatWire } from "./openai-chat.ts";
import { openaiResponsesWire } from "./openai-responses.ts";

export const WIRES: Record<WireId, Wire> = {
  "openai-responses": openaiResponsesWire,
  "openai-chat": openaiChatWire,
  anthropic: anthropicWire,
};
