/**
 * A value as a cell: NULL apart from the empty string, numbers right-aligned, BLOBs as their
 * size and first bytes, long text clipped with a link to all of it, and every character that
 * is invisible or reorders text shown as its \uXXXX (so "users\u202Etxt.exe" cannot pass for
 * "usersexe.txt"). JSX escapes text; nothing here is ever HTML.
 */
import type { Child } from "hono/jsx";

/** Characters that are invisible or reorder text: bidi controls, zero-width marks, C0/C1. */
const CONTROLS =
  // deno-lint-ignore no-control-regex -- finding control characters is the point.
  /[\u0000-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF\u{E0000}-\u{E007F}]/gu;
const LAYOUT = /^[\t\n]$/;

export const CLIP_CHARS = 40;

function escapeCode(c: string): string {
  const hex = c.codePointAt(0)!.toString(16).toUpperCase();
  return hex.length > 4 ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`;
}

/** Text with each hidden character as a marked \uXXXX; tabs and newlines kept if asked. */
export function Visible({ text, layout }: { text: string; layout?: boolean }) {
  const parts: Child[] = [];
  let last = 0;
  for (const m of text.matchAll(CONTROLS)) {
    if (layout && LAYOUT.test(m[0])) continue;
    if (m.index > last) parts.push(text.slice(last, m.index));
    parts.push(<span class="ctl">{escapeCode(m[0])}</span>);
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
}

/** Whether text holds a hidden character other than tab and newlines (CR too, in a form). */
export function hasHidden(text: string): boolean {
  return text.replace(/[\t\n\r]/g, "").replace(CONTROLS, "") !== text.replace(/[\t\n\r]/g, "");
}

/** The same as plain text, for titles and file names. */
export function visibleString(text: string): string {
  return text.replace(CONTROLS, escapeCode);
}

export interface Blob64 {
  $base64: true;
  encoded: string;
}

export function isBlob(v: unknown): v is Blob64 {
  return v !== null && typeof v === "object" && (v as Blob64).$base64 === true;
}

export function blobBytes(v: Blob64): Uint8Array<ArrayBuffer> {
  return Uint8Array.fromBase64(v.encoded);
}

function hexPreview(bytes: Uint8Array, n = 16): string {
  const hex = [...bytes.subarray(0, n)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
  return bytes.length > n ? hex + " …" : hex;
}

export function sizeText(bytes: number): string {
  return bytes === 1 ? "1 byte" : `${bytes.toLocaleString("en-US")} bytes`;
}

/** Where a cell's whole value can be seen or downloaded, when its row has a key. */
export interface CellLinks {
  view?: string;
  raw?: string;
  /** A foreign key's target: the value links there. */
  ref?: string;
}

/** The head row of a table: its column names. */
export function Head({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th>
            <Visible text={name} />
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** One cell of a result table. */
export function Cell({ value, links }: { value: unknown; links?: CellLinks }) {
  if (value === null) return <td class="null">NULL</td>;
  if (typeof value === "number") {
    return <td class="num">{links?.ref ? <a href={links.ref}>{String(value)}</a> : value}</td>;
  }
  if (isBlob(value)) {
    const bytes = blobBytes(value);
    return (
      <td class="blob">
        BLOB {sizeText(bytes.length)}
        {bytes.length > 0 ? <code>{" " + hexPreview(bytes)}</code> : ""}
        {links?.raw
          ? (
            <>
              {" "}
              <a href={links.raw} download>download</a>
            </>
          )
          : ""}
      </td>
    );
  }
  const text = String(value);
  if (text === "") return <td class="empty" title="empty string">''</td>;
  const clipped = text.length > CLIP_CHARS;
  const shown = clipped ? text.slice(0, CLIP_CHARS) : text;
  const body = links?.ref
    ? (
      <a href={links.ref}>
        <Visible text={shown} />
      </a>
    )
    : <Visible text={shown} />;
  return (
    <td>
      {body}
      {clipped
        ? (links?.view
          ? (
            <>
              {"… "}
              <a
                class="more"
                href={links.view}
                title={`all ${text.length.toLocaleString("en-US")} characters`}
              >
                more
              </a>
            </>
          )
          : `… (${text.length.toLocaleString("en-US")} characters)`)
        : ""}
    </td>
  );
}

/** A value in full, for the row and cell views: JSON pretty-printed, layout kept. */
export function FullValue({ value }: { value: unknown }) {
  if (value === null) return <span class="null">NULL</span>;
  if (typeof value === "number") return <span class="num">{value}</span>;
  if (isBlob(value)) {
    const bytes = blobBytes(value);
    return (
      <span class="blob">
        BLOB {sizeText(bytes.length)} <code>{hexPreview(bytes, 64)}</code>
      </span>
    );
  }
  const text = String(value);
  if (text === "") return <span class="empty">'' (empty string)</span>;
  const pretty = prettyJson(text);
  return <pre class="full"><Visible text={pretty ?? text} layout /></pre>;
}

/** Text that is a JSON object or array, indented; null for anything else. */
export function prettyJson(text: string): string | null {
  const t = text.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[")) return null;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return null;
  }
}
