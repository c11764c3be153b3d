import type { DocumentPart, ImagePart, Message, UserMessage } from "../providers/types.ts";

/** Bytes as an image part for the model (every wire sends base64). */
export function imagePart(image: { mime: string; data: Uint8Array }): ImagePart {
  return { type: "image", mime: image.mime, data: Buffer.from(image.data).toString("base64") };
}

/** How an image reads in history: `[image: image/jpeg, 123 KB]`. */
export function imagePlaceholder(part: ImagePart): string {
  return `[image: ${part.mime}, ${Math.max(1, Math.round(decodedBytes(part.data) / 1024))} KB]`;
}

/** How a document reads in history: `[document: report.pdf, application/pdf, 1234 KB]`. */
export function documentPlaceholder(part: DocumentPart): string {
  return `[document: ${part.name}, ${part.mime}, ${Math.max(1, Math.round(decodedBytes(part.data) / 1024))} KB]`;
}

/**
 * The message as history keeps it: each picture and document becomes its placeholder. The bytes go to the model
 * only in the turn that received them; replaying megabytes of base64 on every later turn would bloat memory.db and
 * every request after it.
 */
export function withMediaPlaceholders<M extends Message>(message: M): M {
  if (message.role !== "user" || message.content.every((p) => p.type === "text")) return message;
  const content: UserMessage["content"] = message.content.map((p) =>
    p.type === "image"
      ? { type: "text", text: imagePlaceholder(p) }
      : p.type === "document"
        ? { type: "text", text: documentPlaceholder(p) }
        : p,
  );
  return { ...message, content } as M;
}

export function hasImages(messages: readonly Message[]): boolean {
  return messages.some((m) => m.role === "user" && m.content.some((p) => p.type === "image"));
}

function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/**
 * The user message of a turn: its documents and pictures first (models read them best ahead of the question), then
 * the text.
 */
export function userMessage(
  text: string,
  images: ReadonlyArray<{ mime: string; data: Uint8Array }> = [],
  documents: readonly TurnDocument[] = [],
): UserMessage {
  const content: UserMessage["content"] = [...documents.map(documentPart), ...images.map(imagePart)];
  // A captionless picture has no text; an empty text block is an error on Anthropic.
  if (text || !content.length) content.push({ type: "text", text });
  return { role: "user", content };
}

/** A file that came with a turn for a model that reads documents (`fermix ask --attach report.pdf`). */
export type TurnDocument = { mime: "application/pdf"; name: string; data: Uint8Array };

function documentPart(doc: TurnDocument): DocumentPart {
  return { type: "document", mime: doc.mime, name: doc.name, data: Buffer.from(doc.data).toString("base64") };
}
