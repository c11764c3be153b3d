/** A picture a chat user sent: the bytes the turn's model saw. */
export type InboundImage = { mime: string; data: Uint8Array };

/** The newest picture each chat sent, for generate_image's `inbound:last` in a later turn. */
export interface LastImages {
  remember(conversation: string, image: InboundImage): void;
  get(conversation: string): InboundImage | undefined;
}
