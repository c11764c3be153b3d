/**
 * The request checks the Messages API runs before sampling, with its own wording. Most agent-loop
 * bugs surface here on the real service: a `system` role inside messages, an empty text block, a
 * tool_result whose tool_use is not in the previous turn, a tool_use never answered.
 */
import { anthropicDocumentProblem } from "./document-rules.ts";
import { isBase64, sniffImage, VISION_TYPES } from "./image-data.ts";
import { isObject } from "./wire-kit.ts";

type Block = Record<string, any>;

/** The first problem as Anthropic would word it, or null when the body would be accepted. */
export function findMessagesProblem(body: Record<string, any>): string | null {
  if (body.model === undefined || body.model === "") return "model: Field required";
  if (body.max_tokens === undefined) return "max_tokens: Field required";
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return "max_tokens: Input should be a valid integer greater than or equal to 1";
  }
  const messages = body.messages;
  if (messages === undefined) return "messages: Field required";
  if (!Array.isArray(messages)) return "messages: Input should be a valid list";
  if (messages.length === 0) return "messages: at least one message is required";
  for (let i = 0; i < messages.length; i++) {
    const problem = messageProblem(messages, i);
    if (problem) return problem;
  }
  return null;
}

function blocksOf(message: Record<string, any>): Block[] {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? message.content.filter(isObject) : [];
}

function messageProblem(messages: unknown[], i: number): string | null {
  const m = messages[i];
  if (!isObject(m)) return `messages.${i}: Input should be a valid dictionary`;
  if (m.role === "system") {
    return 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.';
  }
  if (m.role !== "user" && m.role !== "assistant") return `messages.${i}.role: Input should be 'user' or 'assistant'`;
  const isFinalAssistant = m.role === "assistant" && i === messages.length - 1;
  const blocks = blocksOf(m);
  if (blocks.length === 0 || (typeof m.content === "string" && m.content === "")) {
    if (!isFinalAssistant) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
  }
  if (
    Array.isArray(m.content) &&
    blocks.some((b) => b.type === "text" && (typeof b.text !== "string" || b.text === ""))
  ) {
    return "messages: text content blocks must be non-empty";
  }
  return (
    imageProblem(blocks, i) ??
    anthropicDocumentProblem(blocks, i) ??
    toolPairingProblem(messages as Record<string, any>[], i)
  );
}

/** Each tool_result answers a tool_use of the turn just before; each tool_use is answered in the next turn. */
function toolPairingProblem(messages: Record<string, any>[], i: number): string | null {
  const m = messages[i]!;
  const blocks = blocksOf(m);
  if (m.role === "user") {
    const previous = messages[i - 1];
    const offered = new Set(
      previous?.role === "assistant"
        ? blocksOf(previous)
            .filter((b) => b.type === "tool_use")
            .map((b) => b.id)
        : [],
    );
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!;
      if (block.type === "tool_result" && !offered.has(block.tool_use_id)) {
        return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  const next = messages[i + 1];
  if (m.role === "assistant" && next) {
    const answered = new Set(
      next.role === "user"
        ? blocksOf(next)
            .filter((b) => b.type === "tool_result")
            .map((b) => b.tool_use_id)
        : [],
    );
    const missing = blocks.filter((b) => b.type === "tool_use" && !answered.has(b.id)).map((b) => b.id);
    if (missing.length > 0) {
      return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
  }
  return null;
}

/** The API's 5 MB cap on one image, measured on the base64 it receives. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Image blocks: a base64 source of one of four types, at most 5 MB, whose bytes are what the type says. */
function imageProblem(blocks: Block[], i: number): string | null {
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!;
    if (block.type !== "image") continue;
    const at = `messages.${i}.content.${j}.image.source`;
    const source = block.source;
    if (!isObject(source)) return `${at}: Field required`;
    if (source.type === "url") continue;
    if (source.type !== "base64") {
      return `${at}: Input tag '${source.type}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`;
    }
    if (!(VISION_TYPES as readonly string[]).includes(source.media_type)) {
      return `${at}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
    }
    if (typeof source.data !== "string" || !isBase64(source.data)) {
      return `${at}.base64.data: Input should be a valid base64 string`;
    }
    if (source.data.length > MAX_IMAGE_BYTES) {
      return `${at}.base64: image exceeds 5 MB maximum: ${source.data.length} bytes > ${MAX_IMAGE_BYTES} bytes`;
    }
    const actual = sniffImage(source.data);
    if (!actual) return `${at}.base64.data: Image does not match the provided media type ${source.media_type}`;
    if (actual !== source.media_type) {
      return `${at}.base64: The image was specified using the ${source.media_type} media type, but the image appears to be a ${actual} image`;
    }
  }
  return null;
}
