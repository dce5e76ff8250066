/**
 * The pages' one style sheet, inline and allowed by its sha256 hash (no 'unsafe-inline'; no
 * `style` attributes anywhere, which a hash would not cover). Light and dark follow the system.
 */
export const STYLE = `
:root { color-scheme: light dark; --fg: #1b1b1f; --bg: #fff; --muted: #666; --line: #d4d4d8;
  --head: #f4f4f5; --link: #0550ae; --hover: #eef2ff; --ctl-fg: #a00; --ctl-bg: #fdd;
  --warn-bg: #fff4d6; --warn-fg: #6b4a00; --err-bg: #fde8e8; --err-fg: #9b1c1c; --code: #f6f8fa; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e4e4e7; --bg: #18181b; --muted: #a1a1aa; --line: #3f3f46; --head: #27272a;
    --link: #8ab4f8; --hover: #1e293b; --ctl-fg: #fca5a5; --ctl-bg: #450a0a;
    --warn-bg: #3b2f0a; --warn-fg: #fde68a; --err-bg: #3f1111; --err-fg: #fecaca; --code: #232326; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible,
textarea:focus-visible, summary:focus-visible { outline: 2px solid var(--link); outline-offset: 1px; }
header.top { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center;
  padding: .4rem .8rem; border-bottom: 1px solid var(--line); background: var(--head); }
header.top .home { font-weight: 600; text-decoration: none; color: var(--fg); }
.badge { font-size: 12px; padding: .05rem .4rem; border-radius: 3px; border: 1px solid var(--line); }
.badge.write { background: var(--err-bg); color: var(--err-fg); border-color: var(--err-fg); font-weight: 600; }
.layout { display: flex; min-height: calc(100vh - 2.4rem); }
nav.tables { width: 15rem; flex: none; border-right: 1px solid var(--line); padding: .5rem;
  overflow: auto; max-height: calc(100vh - 2.4rem); position: sticky; top: 0; }
nav.tables ul { list-style: none; margin: 0; padding: 0; }
nav.tables li a { display: block; padding: .1rem .3rem; text-decoration: none; color: var(--fg);
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; border-radius: 3px; }
nav.tables li a:hover, nav.tables li a[aria-current] { background: var(--hover); }
nav.tables h2 { font-size: 13px; margin: .6rem 0 .2rem; color: var(--muted); }
.kind { font-size: 11px; color: var(--muted); margin-left: .3rem; }
main { flex: 1; min-width: 0; padding: .6rem 1rem; }
h1 { font-size: 18px; margin: .2rem 0 .5rem; overflow-wrap: anywhere; }
h2 { font-size: 15px; margin: 1rem 0 .4rem; }
.tabs { display: flex; gap: .8rem; margin-bottom: .5rem; flex-wrap: wrap; }
.tabs a[aria-current] { font-weight: 600; color: var(--fg); text-decoration: none; }
.note { color: var(--muted); font-size: 13px; }
.warn { background: var(--warn-bg); color: var(--warn-fg); padding: .3rem .6rem; border-radius: 3px; }
.error { background: var(--err-bg); color: var(--err-fg); padding: .4rem .6rem; border-radius: 3px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.scroll { overflow: auto; max-width: 100%; border: 1px solid var(--line); }
table.rows { border-collapse: collapse; font: 12px ui-monospace, monospace; }
table.rows td, table.rows th { border: 1px solid var(--line); padding: .15rem .4rem; text-align: left;
  vertical-align: top; max-width: 32em; overflow: hidden; text-overflow: ellipsis; white-space: pre; }
table.rows th { background: var(--head); position: sticky; top: 0; font-weight: 600; }
table.rows th a { color: var(--fg); text-decoration: none; }
table.rows th a:hover { text-decoration: underline; }
table.rows tr:hover td { background: var(--hover); }
table.rows td.num, span.num { text-align: right; font-variant-numeric: tabular-nums; }
td.null, span.null, td.empty, span.empty, td.blob, span.blob { color: var(--muted); font-style: italic; }
.ctl { color: var(--ctl-fg); background: var(--ctl-bg); border-radius: 2px; padding: 0 1px; font-style: italic; }
pre, code { font: 12px ui-monospace, monospace; }
pre { background: var(--code); padding: .5rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.full { max-height: 70vh; }
form.filters { display: grid; gap: .3rem; margin: .4rem 0; }
form.filters .filter { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; }
input, select, textarea, button { font: inherit; color: inherit; background: var(--bg);
  border: 1px solid var(--line); border-radius: 3px; padding: .15rem .35rem; }
button { background: var(--head); cursor: pointer; }
textarea.sql { width: 100%; min-height: 8rem; font: 13px ui-monospace, monospace; }
.pager { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; margin: .4rem 0; }
.pager form { display: inline-flex; gap: .3rem; align-items: center; }
.downloads { display: flex; flex-wrap: wrap; gap: .8rem; margin: .4rem 0; }
ul.plan, ul.plan ul { list-style: none; padding-left: 1.2rem; border-left: 1px solid var(--line); }
ul.plan { padding-left: .4rem; }
dl.row { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .2rem 1rem; }
dl.row dt { font-weight: 600; overflow-wrap: anywhere; }
dl.row dd { margin: 0; min-width: 0; }
dl.row dd pre { margin: 0; }
table.meta { border-collapse: collapse; }
table.meta td, table.meta th { border-bottom: 1px solid var(--line); padding: .2rem .6rem; text-align: left; vertical-align: top; }
.history li { margin: .2rem 0; }
.history code { white-space: pre-wrap; overflow-wrap: anywhere; }
@media (max-width: 700px) {
  .layout { display: block; }
  nav.tables { width: auto; max-height: 10rem; position: static; border-right: 0;
    border-bottom: 1px solid var(--line); }
  main { padding: .5rem; }
  table.rows td, table.rows th { max-width: 14em; }
}
`;
