/**
 * Decodes a fetched body as text, honouring the charset the server declared (or, for HTML, the page's own
 * `<meta charset>`), falling back to UTF-8. Never throws: a wrong guess costs some characters, not the answer.
 */
export function decodeText(body: Uint8Array, contentType: string, html: boolean): string {
  const declared = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1];
  const sniffed = html && declared === undefined ? metaCharset(body) : undefined;
  const label = declared ?? sniffed ?? "utf-8";
  try {
    // Bun's types list a few labels; at run time any WHATWG encoding label works, and unknown ones throw.
    return new TextDecoder(label as "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

// The HTML standard's prescan looks at the first 1024 bytes for <meta charset> or http-equiv content-type.
function metaCharset(body: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(body.subarray(0, 1024));
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
}

/** The media type without parameters, lowercased: "text/html; charset=utf-8" → "text/html". */
export function mediaType(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}
