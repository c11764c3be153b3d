/**
 * What the document-reading APIs check about an inline PDF before any model sees it: OpenAI Responses'
 * `input_file` (a `file_data` data URL with a `filename`, per the SDK's ResponseInputFile) and Anthropic's
 * `document` block (a base64 source of media_type application/pdf, per Base64PDFSource). Both decode the bytes,
 * so a file that is not a PDF is refused.
 */
import { isBase64, parseDataUrl } from "./image-data.ts";
import { isObject } from "./wire-kit.ts";

const isPdf = (base64: string) => Buffer.from(base64.slice(0, 1400), "base64").toString("latin1").includes("%PDF-");

/** An input_file part's problem, or null: one of file_data/file_id/file_url, and with file_data a filename. */
export function responsesFileProblem(
  part: Record<string, any>,
  param: string,
): { message: string; param: string } | null {
  if (part.file_data === undefined && part.file_id === undefined && part.file_url === undefined) {
    return { message: `Invalid '${param}': one of file_id, file_data or file_url must be provided.`, param };
  }
  if (part.file_data === undefined) return null;
  if (typeof part.filename !== "string" || !part.filename) {
    return { message: `Missing required parameter: '${param}.filename'.`, param: `${param}.filename` };
  }
  const parsed = typeof part.file_data === "string" ? parseDataUrl(part.file_data) : undefined;
  if (!parsed || !isBase64(parsed.data) || !parsed.data) {
    return {
      message: `Invalid '${param}.file_data': expected a base64-encoded data URL.`,
      param: `${param}.file_data`,
    };
  }
  if (parsed.mime !== "application/pdf" || !isPdf(parsed.data)) {
    return { message: `Invalid '${param}.file_data': the file is not a valid PDF.`, param: `${param}.file_data` };
  }
  return null;
}

/** Every document block of a message: a base64 PDF source whose bytes are a PDF. */
export function anthropicDocumentProblem(blocks: Record<string, any>[], i: number): string | null {
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!;
    if (block.type !== "document") continue;
    const at = `messages.${i}.content.${j}.document.source`;
    const source = block.source;
    if (!isObject(source)) return `${at}: Field required`;
    if (source.type !== "base64") continue;
    if (source.media_type !== "application/pdf") return `${at}.base64.media_type: Input should be 'application/pdf'`;
    if (typeof source.data !== "string" || !isBase64(source.data) || !source.data) {
      return `${at}.base64.data: Input should be a valid base64 string`;
    }
    if (!isPdf(source.data)) return `${at}.base64.data: The PDF specified was not valid.`;
  }
  return null;
}
