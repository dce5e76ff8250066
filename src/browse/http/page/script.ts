/**
 * The page's script. Inline in the page and allowed by its sha256 hash (no 'unsafe-inline').
 * It uses only the public API, builds the DOM with textContent and never with HTML strings
 * (Trusted Types are required, so an HTML sink would throw), and keeps an optional bearer token
 * in sessionStorage, so it is gone when the tab closes.
 *
 * Written with String.raw so that escapes such as \u202E reach the browser as written.
 */
export const PAGE_SCRIPT = String.raw`
"use strict";
const $ = (id) => document.getElementById(id);
const PAGE_SIZE = 100;
/** A cell shows at most this many characters of its text; the viewer shows all of it. */
const CELL_CHARS = 200;
const tokenBox = $("token");
tokenBox.value = sessionStorage.getItem("courier-token") || "";
tokenBox.addEventListener("change", () => {
  sessionStorage.setItem("courier-token", tokenBox.value);
  loadTables(true);
  loadHistory();
});

// Characters that are invisible or reorder text: bidi embeddings, overrides and isolates,
// zero-width marks, BOM, C0 and C1 controls, line/paragraph separators, tag characters.
// Shown as \uXXXX so that "users\u202Etxt.exe" cannot pass for "usersexe.txt".
const CONTROLS = /[\u0000-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF\u{E0000}-\u{E007F}]/gu;
const KEEP_LAYOUT = /[\t\n]/;
function escapeCode(c) {
  const hex = c.codePointAt(0).toString(16).toUpperCase();
  return hex.length > 4 ? "\\u{" + hex + "}" : "\\u" + hex.padStart(4, "0");
}
/** Text as nodes, each control character a styled \uXXXX; tabs and newlines kept if asked. */
function visible(text, keepLayout) {
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(CONTROLS)) {
    if (keepLayout && KEEP_LAYOUT.test(m[0])) continue;
    if (m.index > last) frag.append(text.slice(last, m.index));
    const span = document.createElement("span");
    span.className = "ctl";
    span.textContent = escapeCode(m[0]);
    frag.append(span);
    last = m.index + m[0].length;
  }
  if (last < text.length) frag.append(text.slice(last));
  return frag;
}
// A text box cannot style characters, so a query holding hidden ones is shown again below
// it, visibly; otherwise a table name with U+202E reorders the whole line in the box.
const LAYOUT = /[\t\n\r]/g;
function showQueryControls() {
  const q = $("query").value;
  const hidden = (q.replace(LAYOUT, "").match(CONTROLS) || []).length > 0;
  $("query-controls").hidden = !hidden;
  if (hidden) $("query-controls").replaceChildren("Hidden characters in the query: ", visible(q, true));
}
function setQuery(q) {
  $("query").value = q;
  showQueryControls();
}
$("query").addEventListener("input", showQueryControls);
/** The same as plain text, for tooltips. */
function visibleString(text) { return text.replace(CONTROLS, escapeCode); }

// Status line. An error remembers its kind, so a background success (table list, history)
// clears an error of its own kind but never the error of a query the user ran.
function status(text, kind) {
  const s = $("status");
  s.textContent = text;
  s.className = kind ? "error" : "";
  s.dataset.kind = kind || "";
}
function clearErrors(kinds) {
  if (kinds.includes($("status").dataset.kind)) status("");
}
function authHint(needed) {
  const hint = $("auth-hint");
  hint.hidden = !needed;
  tokenBox.classList.toggle("needed", needed);
  if (needed) {
    hint.textContent = tokenBox.value
      ? "The server refused this token. Check the Token box above: it needs the token courier browse was started with."
      : "This server needs a bearer token. Enter it in the Token box above (the token courier browse was started with).";
  }
}

class ApiError extends Error {
  constructor(message, code) { super(message); this.code = code; }
}
function headers(extra) {
  const h = Object.assign({}, extra);
  if (tokenBox.value) h.Authorization = "Bearer " + tokenBox.value;
  return h;
}
/** Checks a response; a 401 shows the token hint, any success hides it. */
async function checked(res) {
  if (res.status === 401) authHint(true);
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    throw new ApiError(body.error || ("HTTP " + res.status), res.status === 401 ? "auth" : "api");
  }
  authHint(false);
  clearErrors(["auth"]);
  return res;
}
async function call(path, init) {
  const res = await fetch(path, Object.assign({}, init, { headers: headers(init && init.headers) }));
  return await (await checked(res)).json();
}
function post(path, query) {
  return call(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query: query }) });
}
/** A generated read: GET, which the server runs read-only even with --write. */
function read(query) { return call("api/query?query=" + encodeURIComponent(query)); }

function blobBytes(encoded) {
  return Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
}
function blobSize(encoded) {
  const pad = encoded.endsWith("==") ? 2 : encoded.endsWith("=") ? 1 : 0;
  return encoded.length / 4 * 3 - pad;
}
function saveFile(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  // The download reads the URL after this task; revoking at once could cancel it.
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// The full value of each clipped cell, kept out of the DOM.
const fullValues = new WeakMap();
function cell(v, column, rowNumber) {
  const td = document.createElement("td");
  const div = document.createElement("div");
  div.className = "v";
  td.append(div);
  if (v === null) {
    div.textContent = "NULL";
    div.classList.add("null");
  } else if (typeof v === "object") {
    div.classList.add("blob");
    div.textContent = "<blob " + blobSize(v.encoded) + " bytes>";
    const b = document.createElement("button");
    b.className = "link";
    b.textContent = "download";
    b.addEventListener("click", (e) => {
      e.stopPropagation();
      saveFile(new Blob([blobBytes(v.encoded)], { type: "application/octet-stream" }),
        column.replace(/[^\w.-]+/g, "_") + "-" + rowNumber + ".bin");
    });
    div.append(b);
  } else {
    const text = String(v);
    div.append(visible(text.length > CELL_CHARS ? text.slice(0, CELL_CHARS) + "…" : text));
    fullValues.set(div, { column: column, text: text });
    if (text.length > CELL_CHARS) markClipped(div);
  }
  return td;
}
/** A cell whose text is cut: it opens in the viewer by click, or by Enter once focused. */
function markClipped(div) {
  div.classList.add("clip");
  div.tabIndex = 0;
}
function openViewer(div) {
  const full = fullValues.get(div);
  if (!full) return;
  $("viewer-title").replaceChildren(visible(full.column), " (" + full.text.length + " characters)");
  $("viewer-text").replaceChildren(visible(full.text, true));
  $("viewer").showModal();
}
$("viewer-close").addEventListener("click", () => $("viewer").close());
$("result").addEventListener("click", (e) => {
  const div = e.target.closest && e.target.closest(".v.clip");
  if (div) openViewer(div);
});
$("result").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && e.target.matches(".v.clip")) openViewer(e.target);
});

function showResult(body, rowOffset) {
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const c of body.columns) {
    const th = document.createElement("th");
    const div = document.createElement("div");
    div.className = "v";
    div.append(visible(c));
    div.title = visibleString(c);
    th.append(div);
    head.append(th);
  }
  const tbody = table.createTBody();
  body.rows.forEach((row, i) => {
    const tr = tbody.insertRow();
    row.forEach((v, j) => tr.append(cell(v, body.columns[j] || "", rowOffset + i + 1)));
  });
  $("result").replaceChildren(table);
  // Cells cut by the column width (not only by length) open in the viewer too: one layout,
  // then reads only.
  for (const div of tbody.querySelectorAll(".v")) {
    if (div.scrollWidth > div.clientWidth && fullValues.has(div)) markClipped(div);
  }
  const s = body.stats || {};
  status(body.rows.length + " rows" + (body.truncated ? " (truncated)" : "") +
    (s.duration_ms !== undefined ? ", " + s.duration_ms + " ms" : "") +
    (s.rows_affected !== undefined ? ", " + s.rows_affected + " changed" : ""));
}

// Paging through one table: LIMIT/OFFSET pages and a count(*) for "rows a–b of N".
let paging = null;
function quoteName(name) { return '"' + name.replace(/"/g, '""') + '"'; }
function pageQuery() {
  return "SELECT * FROM " + quoteName(paging.table) + " LIMIT " + PAGE_SIZE + " OFFSET " + paging.offset;
}
function showPager(shown) {
  $("pager").hidden = !paging;
  if (!paging) return;
  const total = paging.total;
  const from = shown === 0 ? 0 : paging.offset + 1;
  $("range").textContent = total === 0
    ? "no rows"
    : "rows " + from + "–" + (paging.offset + shown) + " of " + (total === null ? "?" : total);
  $("prev").disabled = paging.offset === 0;
  $("next").disabled = total === null ? shown < PAGE_SIZE : paging.offset + shown >= total;
}
const shownRows = () => $("result").querySelectorAll("tbody tr").length;
async function openTable(name) {
  const state = paging = { table: name, offset: 0, total: null };
  const counting = read("SELECT count(*) FROM " + quoteName(name))
    .then((body) => Number(body.rows[0][0]), () => null);
  const shown = await showPage();
  state.total = await counting;
  if (shown && paging === state && state.offset === 0) showPager(shownRows());
}
/** Shows the current page of the current table; true if it did. */
async function showPage() {
  const state = paging, offset = state.offset, query = pageQuery();
  setQuery(query);
  const ok = await showAnswer(() => read(query), offset);
  const shown = ok && paging === state && state.offset === offset;
  if (shown) showPager(shownRows());
  loadHistory();
  return shown;
}
// Answers can arrive out of order (two quick clicks): only the latest request's is shown.
let latest = 0;
async function showAnswer(request, rowOffset) {
  const mine = ++latest;
  status("running...");
  try {
    const body = await request();
    if (mine !== latest) return false;
    showResult(body, rowOffset);
    return true;
  } catch (e) {
    if (mine !== latest) return false;
    $("result").replaceChildren();
    status(e.message, e.code || "query");
    return false;
  }
}
$("prev").addEventListener("click", () => {
  paging.offset = Math.max(0, paging.offset - PAGE_SIZE);
  showPage();
});
$("next").addEventListener("click", () => {
  paging.offset += PAGE_SIZE;
  showPage();
});

async function run(path) {
  paging = null;
  showPager(0);
  await showAnswer(() => post(path, $("query").value), 0);
  // Any statement may have created or dropped a table; listing them again is cheap.
  loadTables(false);
  loadHistory();
}

// The CSV export goes through the API's own format=csv, which streams the whole result (no
// row cap) and runs read-only; the page rewrites each field so a spreadsheet never evaluates it.
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** OWASP's rule for CSV injection: a field starting with = + - @ tab or CR gets a leading '. */
function safeField(s) {
  if (/^[=+\-@\t\r]/.test(s) && !NUMBER.test(s)) s = "'" + s;
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}
/** An RFC 4180 reader fed in chunks; it returns the records it completed, rewritten. */
function csvRewriter() {
  let field = "", fields = [], inQuotes = false, quoteSeen = false, fieldStart = true;
  const endField = () => { fields.push(field); field = ""; fieldStart = true; };
  const endRecord = () => {
    endField();
    const line = fields.map(safeField).join(",") + "\r\n";
    fields = [];
    return line;
  };
  return {
    push(text) {
      let out = "";
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inQuotes) {
          if (quoteSeen) {
            quoteSeen = false;
            if (c === '"') { field += c; continue; }
            inQuotes = false;
          } else {
            if (c === '"') quoteSeen = true; else field += c;
            continue;
          }
        }
        if (c === '"' && fieldStart) { inQuotes = true; fieldStart = false; }
        else if (c === ",") endField();
        else if (c === "\n") out += endRecord();
        else if (c !== "\r") { field += c; fieldStart = false; }
      }
      return out;
    },
    end() {
      if (inQuotes && !quoteSeen) throw new Error("the CSV download ended inside a quoted field");
      return field !== "" || fields.length > 0 ? endRecord() : "";
    },
  };
}
async function download() {
  status("downloading...");
  try {
    const res = await checked(await fetch("api/query?format=csv&query=" +
      encodeURIComponent($("query").value), { headers: headers() }));
    const rewriter = csvRewriter();
    const parts = [];
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      // A transfer the server ends with an error rejects here: no file is saved.
      const { value, done } = await reader.read();
      if (done) break;
      parts.push(rewriter.push(value));
    }
    parts.push(rewriter.end());
    saveFile(new Blob(parts, { type: "text/csv;charset=utf-8" }), "result.csv");
    status("downloaded");
  } catch (e) { status(e.message, e.code || "query"); }
  loadHistory();
}

function listButton(text, onClick) {
  const b = document.createElement("button");
  b.append(visible(text));
  b.title = visibleString(text);
  b.dataset.name = text;
  b.addEventListener("click", onClick);
  return b;
}
async function loadTables(userAsked) {
  try {
    const info = await call("api/info");
    $("info").replaceChildren(visible(info.database + " — SQLite " + info.sqlite_version +
      (info.read_only ? " — read-only" : " — read-write")));
    const names = await call("api/tables");
    $("tables").replaceChildren(...names.map((name) => listButton(name, () => openTable(name))));
    if (userAsked) status("");
    else clearErrors(["load"]);
  } catch (e) { status(e.message, e.code === "auth" ? "auth" : "load"); }
}
async function loadHistory() {
  try {
    const entries = await call("api/history");
    const seen = new Set();
    const items = [];
    // Newest first, each query once: paging repeats the same few queries.
    for (let i = entries.length - 1; i >= 0; i--) {
      const h = entries[i];
      if (seen.has(h.query)) continue;
      seen.add(h.query);
      const b = listButton(h.query, () => { setQuery(h.query); $("query").focus(); });
      b.title = visibleString(h.query) + "\n" + h.timestamp + ", " + h.rows + " rows, " +
        h.duration_ms + " ms";
      items.push(b);
    }
    $("history").replaceChildren(...items);
  } catch { /* the table list reports load and token errors */ }
}

$("run").addEventListener("click", () => run("api/query"));
$("explain").addEventListener("click", () => run("api/explain"));
$("csv").addEventListener("click", download);
$("query").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run("api/query"); }
});
loadTables(false);
loadHistory();
`;
