/** The text of a document and what was learned while choosing its encoding. */
export interface DecodedText {
  text: string;
  warnings: string[];
}

const LATIN1 = new TextDecoder("latin1");

function charsetOf(contentType: string | null | undefined): string | null {
  const m = contentType?.match(/;\s*charset\s*=\s*"?([^";\s]+)/i);
  return m ? m[1].toLowerCase() : null;
}

function declaredEncoding(bytes: Uint8Array): string | null {
  const head = LATIN1.decode(bytes.subarray(0, 1024));
  const m = head.match(/^\s*<\?xml[^>]*?encoding\s*=\s*["']\s*([A-Za-z0-9._:-]+)\s*["']/);
  return m ? m[1].toLowerCase() : null;
}

function bomEncoding(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  // No BOM, but "<?" in UTF-16 is unmistakable.
  if (bytes[0] === 0x3c && bytes[1] === 0 && bytes[2] === 0x3f && bytes[3] === 0) return "utf-16le";
  if (bytes[0] === 0 && bytes[1] === 0x3c && bytes[2] === 0 && bytes[3] === 0x3f) return "utf-16be";
  return null;
}

function isUtf8(label: string): boolean {
  return label === "utf-8" || label === "utf8" || label === "unicode-1-1-utf-8";
}

function hasHighBytes(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] >= 0x80) return true;
  return false;
}

const UTF8 = new TextDecoder("utf-8");
const UTF8_FATAL = new TextDecoder("utf-8", { fatal: true });

function tryDecode(bytes: Uint8Array, label: string): string | null {
  if (isUtf8(label)) {
    // The lenient decoder is the faster one (bench/NOTES.md); a U+FFFD in its output
    // is the only case where validity is in doubt, and only then is the fatal one consulted.
    const text = UTF8.decode(bytes);
    if (text.indexOf("\ufffd") < 0) return text;
    try {
      return UTF8_FATAL.decode(bytes);
    } catch {
      return null;
    }
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: label.startsWith("utf-16") });
  } catch {
    return null; // a label TextDecoder does not know
  }
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Turns a feed's bytes into text the way lenient readers do: a BOM wins, then the HTTP charset,
 * then the XML declaration, then UTF-8; a declaration that the bytes contradict is overruled
 * with a warning (invalid UTF-8 is read as windows-1252; valid multi-byte UTF-8 declared as a
 * single-byte charset is read as UTF-8).
 */
export function decodeFeedBytes(
  bytes: Uint8Array,
  contentType?: string | null,
): DecodedText {
  const warnings: string[] = [];
  const bom = bomEncoding(bytes);
  const http = charsetOf(contentType);
  const declared = declaredEncoding(bytes);
  const wanted = bom ?? http ?? declared ?? "utf-8";

  const candidates = [wanted, declared, "utf-8", "windows-1252"].filter(
    (c, i, all): c is string => c !== null && all.indexOf(c) === i,
  );
  if (!bom && !isUtf8(wanted) && !wanted.startsWith("utf-16") && hasHighBytes(bytes)) {
    // Multi-byte UTF-8 that validates is almost never meant as a single-byte charset.
    const utf8 = tryDecode(bytes, "utf-8");
    if (utf8 !== null) {
      warnings.push(`document declared as ${wanted} but is valid UTF-8; read as UTF-8`);
      return { text: utf8, warnings };
    }
  }
  for (const label of candidates) {
    const text = tryDecode(bytes, label);
    if (text === null) continue;
    if (label !== wanted) warnings.push(`document is not valid ${wanted}; read as ${label}`);
    return { text, warnings };
  }
  // windows-1252 decodes every byte sequence, so this is unreachable; keep the type honest.
  return { text: LATIN1.decode(bytes), warnings };
}
