export type ModelListing = { ok: true; models: string[] } | { ok: false; error: string };

/** The live model lists behind the web setup panes' pickers; each answers with models or the sentence to show. */
export interface ModelListingService {
  /** The models pulled on the Ollama server at `baseUrl` (the OpenAI-compatible /v1 URL or the server root). */
  ollama(baseUrl: string | undefined): Promise<ModelListing>;

  /** OpenRouter's current models that take tools, newest first; a good answer is reused for `cacheMs`. */
  openrouter(baseUrl: string | undefined): Promise<ModelListing>;
}
