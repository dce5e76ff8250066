/**
 * The web page at `/`: a query box, the table list and a results table. It uses only the
 * public API, builds the DOM with textContent (never innerHTML with data) and keeps an
 * optional bearer token in sessionStorage, so it is gone when the tab closes.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>courier browse</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; display: flex; height: 100vh; }
  nav { width: 14rem; border-right: 1px solid #ccc; padding: .5rem; overflow: auto; }
  nav button { display: block; width: 100%; text-align: left; border: 0; background: none;
    padding: .2rem; cursor: pointer; font: inherit; }
  nav button:hover { background: #eef; }
  main { flex: 1; padding: .5rem 1rem; overflow: auto; }
  textarea { width: 100%; height: 6rem; font: 13px ui-monospace, monospace; }
  table { border-collapse: collapse; margin-top: .5rem; }
  td, th { border: 1px solid #ccc; padding: .15rem .4rem; font: 12px ui-monospace, monospace;
    text-align: left; vertical-align: top; white-space: pre; }
  th { background: #f4f4f4; position: sticky; top: 0; }
  .null { color: #999; }
  #status { margin-left: .5rem; color: #555; }
  #status.error { color: #b00; }
</style>
</head>
<body>
<nav>
  <label>Token <input id="token" type="password" size="12" autocomplete="off"></label>
  <h3>Tables</h3>
  <div id="tables"></div>
</nav>
<main>
  <div id="info"></div>
  <textarea id="query" spellcheck="false">SELECT name FROM sqlite_schema</textarea>
  <div>
    <button id="run">Run (Ctrl+Enter)</button>
    <button id="explain">Explain</button>
    <button id="csv">Download CSV</button>
    <span id="status"></span>
  </div>
  <div id="result"></div>
</main>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const tokenBox = $("token");
tokenBox.value = sessionStorage.getItem("courier-token") || "";
tokenBox.addEventListener("change", () => {
  sessionStorage.setItem("courier-token", tokenBox.value);
  loadTables();
});
function headers(extra) {
  const h = Object.assign({}, extra);
  if (tokenBox.value) h.Authorization = "Bearer " + tokenBox.value;
  return h;
}
function status(text, isError) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}
async function call(path, init) {
  const res = await fetch(path, Object.assign({}, init, { headers: headers(init && init.headers) }));
  const body = await res.json().catch(() => ({ error: "HTTP " + res.status }));
  if (!res.ok) throw new Error(body.error || ("HTTP " + res.status));
  return body;
}
function cell(v) {
  const td = document.createElement("td");
  if (v === null) { td.textContent = "NULL"; td.className = "null"; }
  else if (typeof v === "object") { td.textContent = "<blob " + v.encoded.length + " b64>"; td.className = "null"; }
  else td.textContent = String(v);
  return td;
}
function showResult(body) {
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const c of body.columns) { const th = document.createElement("th"); th.textContent = c; head.appendChild(th); }
  const tbody = table.createTBody();
  for (const row of body.rows) { const tr = tbody.insertRow(); for (const v of row) tr.appendChild(cell(v)); }
  $("result").replaceChildren(table);
  const s = body.stats || {};
  status(body.rows.length + " rows" + (body.truncated ? " (truncated)" : "") +
    (s.duration_ms !== undefined ? ", " + s.duration_ms + " ms" : "") +
    (s.rows_affected !== undefined ? ", " + s.rows_affected + " changed" : ""));
}
async function run(path) {
  status("running...");
  try {
    showResult(await call(path, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: $("query").value }) }));
  } catch (e) { $("result").replaceChildren(); status(e.message, true); }
}
async function download() {
  status("downloading...");
  try {
    const res = await fetch("api/query?format=csv&query=" + encodeURIComponent($("query").value), { headers: headers() });
    if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error || ("HTTP " + res.status));
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement("a");
    a.href = url; a.download = "result.csv"; a.click();
    URL.revokeObjectURL(url);
    status("downloaded");
  } catch (e) { status(e.message, true); }
}
function quoteName(name) { return '"' + name.replace(/"/g, '""') + '"'; }
async function loadTables() {
  try {
    const info = await call("api/info");
    $("info").textContent = info.database + " — SQLite " + info.sqlite_version +
      (info.read_only ? " — read-only" : " — read-write");
    const names = await call("api/tables");
    $("tables").replaceChildren(...names.map((name) => {
      const b = document.createElement("button");
      b.textContent = name;
      b.addEventListener("click", () => {
        $("query").value = "SELECT * FROM " + quoteName(name) + " LIMIT 100";
        run("api/query");
      });
      return b;
    }));
  } catch (e) { status(e.message, true); }
}
$("run").addEventListener("click", () => run("api/query"));
$("explain").addEventListener("click", () => run("api/explain"));
$("csv").addEventListener("click", download);
$("query").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run("api/query"); }
});
loadTables();
</script>
</body>
</html>
`;
