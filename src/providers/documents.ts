import { defineError } from "../error.ts";
import type { Route } from "./routes.ts";

export const NoDocuments = defineError<{ provider: string; model: string }>("provider_no_documents");

/**
 * The providers whose wire takes a PDF inline: OpenAI's Responses API (`input_file` with `file_data`) and
 * Anthropic's Messages API (a `document` block with a base64 source). Chat Completions hosts (OpenRouter, Mistral,
 * Ollama) have no common document part; xAI documents files only by upload (file_id), and the Codex backend does
 * not document `input_file`: both are refused rather than risk a request that silently drops the file.
 */
const READS_PDF: ReadonlySet<string> = new Set(["openai", "anthropic"]);

/** Whether `provider` accepts a PDF in a user message. */
export function canReadDocuments(provider: string): boolean {
  return READS_PDF.has(provider);
}

/**
 * The routes that may carry a turn with a PDF. As with pictures (vision.ts), the owner's first choice failing is
 * said before any request, with what to do instead; a fallback that cannot read one is skipped.
 */
export function documentRoutes(routes: readonly Route[]): Route[] {
  const first = routes[0];
  if (first && !canReadDocuments(first.descriptor.id)) {
    const d = first.descriptor;
    throw NoDocuments(
      `${d.label} (${d.id}) cannot take a PDF attachment; ask with --provider openai or --provider anthropic, or attach the text instead`,
      { provider: d.id, model: first.model },
    );
  }
  return routes.filter((r) => canReadDocuments(r.descriptor.id));
}
