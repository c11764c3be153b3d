import { describe, expect, test } from "bun:test";
import { documentPlaceholder, userMessage, withMediaPlaceholders } from "../../src/media/image-parts.ts";
import { findProvider } from "../../src/providers/descriptors.ts";
import { canReadDocuments, documentRoutes } from "../../src/providers/documents.ts";
import type { Route } from "../../src/providers/routes.ts";

const route = (provider: string): Route => ({
  descriptor: findProvider(provider)!,
  model: findProvider(provider)!.defaultModel,
  target: { provider, baseUrl: "http://x", headers: {}, receiveTimeoutMs: 1 },
});

describe("routes for a turn with a PDF", () => {
  test("OpenAI and Anthropic take one; Chat Completions hosts, xAI and Codex do not", () => {
    expect(["openai", "anthropic"].every(canReadDocuments)).toBe(true);
    for (const id of ["openrouter", "mistral", "ollama", "xai", "openai_codex"])
      expect(canReadDocuments(id)).toBe(false);
  });

  test("a first choice that cannot read it fails naming it; a fallback that cannot is skipped", () => {
    expect(() => documentRoutes([route("mistral"), route("openai")])).toThrow("Mistral (mistral) cannot take a PDF");
    const kept = documentRoutes([route("anthropic"), route("ollama"), route("openai")]);
    expect(kept.map((r) => r.descriptor.id)).toEqual(["anthropic", "openai"]);
  });
});

test("history keeps a placeholder for a document, never its bytes", () => {
  const data = new Uint8Array(3000);
  const message = userMessage("summarise", [], [{ mime: "application/pdf", name: "report.pdf", data }]);
  expect(message.content[0]).toMatchObject({ type: "document", name: "report.pdf" });
  const kept = withMediaPlaceholders(message);
  expect(kept.content).toEqual([
    { type: "text", text: "[document: report.pdf, application/pdf, 3 KB]" },
    { type: "text", text: "summarise" },
  ]);
  expect(documentPlaceholder(message.content[0] as never)).toBe("[document: report.pdf, application/pdf, 3 KB]");
});
