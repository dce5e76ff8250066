// deno-lint-ignore-file jsx-key -- rendered once on the server: no list is ever diffed.
/** The query editor and its results, the query plan as a tree, the history, the home page. */
import type { Child } from "hono/jsx";
import { Cell, hasHidden, Head, Visible } from "./cells.tsx";
import type { HistoryEntry } from "../history.ts";
import type { SavedQuery } from "./operator_queries.ts";
import type { Rows } from "./reads.ts";
import { count } from "./table_view.tsx";
import { BASE, queryDownloadUrl, queryUrl, tablePath } from "./urls.ts";

export interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

export interface QueryPage {
  sql: string;
  params: string;
  write: boolean;
  page: number;
  size: number;
  defaultSize: number;
  /** Whether the statement is a query whose later pages can be read (LIMIT/OFFSET). */
  pageable: boolean;
  result?: Rows;
  plan?: PlanRow[];
  error?: string;
  wrote?: boolean;
  history: HistoryEntry[];
}

/** EXPLAIN QUERY PLAN's rows as the tree their parent ids make. */
export function PlanTree({ rows, parent = 0 }: { rows: PlanRow[]; parent?: number }): Child {
  const children = rows.filter((r) => r.parent === parent);
  if (children.length === 0) return "";
  return (
    <ul class="plan">
      {children.map((r) => (
        <li>
          <Visible text={r.detail} />
          {r.id !== parent ? <PlanTree rows={rows} parent={r.id} /> : ""}
        </li>
      ))}
    </ul>
  );
}

export function QueryView({ q }: { q: QueryPage }) {
  const r = q.result;
  const more = r !== undefined && (r.rows.length > q.size || r.truncated);
  const shown = r ? r.rows.slice(0, q.size) : [];
  const from = (q.page - 1) * q.size + 1;
  const pageUrl = (page: number) =>
    queryUrl({ sql: q.sql, params: q.params, page, size: q.size }, q.defaultSize);
  return (
    <>
      <h1>Query</h1>
      <form method="get" action={`${BASE}/query`}>
        <textarea
          class="sql"
          name="sql"
          spellcheck={false}
          aria-label="SQL"
          data-focus-key=""
          autofocus
        >
          {q.sql}
        </textarea>
        <p>
          <label>
            Parameters (JSON array or object){" "}
            <input name="params" value={q.params} size={40} placeholder='e.g. [1, "a"]' />
          </label>
          {q.size !== q.defaultSize
            ? <input type="hidden" name="size" value={String(q.size)} />
            : ""}
        </p>
        <p>
          <button type="submit">Run (Ctrl+Enter)</button>{" "}
          <button type="submit" name="plan" value="1">Explain query plan</button> {q.write
            ? (
              <button type="submit" formmethod="post" class="badge write">
                Run and write (may change the database)
              </button>
            )
            : ""}
        </p>
      </form>
      {hasHidden(q.sql)
        ? (
          <p class="warn">
            Hidden characters in the query: <Visible text={q.sql} layout />
          </p>
        )
        : ""}
      {q.error !== undefined ? <p class="error" role="alert">{q.error}</p> : ""}
      {q.plan
        ? (
          <>
            <h2>Query plan</h2>
            <PlanTree rows={q.plan} />
          </>
        )
        : ""}
      {r
        ? (
          <>
            <p role="status">
              {q.wrote ? `${count(r.stats?.rows_affected ?? 0)} rows changed. ` : ""}
              {shown.length === 0
                ? "no rows"
                : `rows ${count(from)}–${count(from + shown.length - 1)}${
                  more ? " (more follow)" : ""
                }`}
              {r.stats?.duration_ms !== undefined ? ` · ${r.stats.duration_ms} ms` : ""}
            </p>
            {!q.wrote
              ? (
                <div class="downloads">
                  Download the whole result:
                  {["csv", "json", "xml"].map((f) => (
                    <a href={queryDownloadUrl(q.sql, q.params || undefined, f)} download>
                      all rows, {f.toUpperCase()}
                    </a>
                  ))}
                </div>
              )
              : ""}
            {q.pageable
              ? (
                <div class="pager">
                  {q.page > 1
                    ? (
                      <a rel="prev" href={pageUrl(q.page - 1)}>
                        ‹ Previous
                      </a>
                    )
                    : <span class="note">‹ Previous</span>}
                  <span>page {count(q.page)}</span>
                  {more
                    ? (
                      <a rel="next" href={pageUrl(q.page + 1)}>
                        Next ›
                      </a>
                    )
                    : <span class="note">Next ›</span>}
                  <span class="note">later pages are read with LIMIT and OFFSET</span>
                </div>
              )
              : more
              ? <p class="note">Only the first {count(q.size)} rows are shown; download for all.</p>
              : ""}
            <div class="scroll">
              <table class="rows">
                <Head names={r.columns} />
                <tbody>
                  {shown.map((row) => <tr>{row.map((v) => <Cell value={v} />)}</tr>)}
                </tbody>
              </table>
            </div>
          </>
        )
        : ""}
      <History entries={q.history} />
    </>
  );
}

function History({ entries }: { entries: HistoryEntry[] }) {
  if (entries.length === 0) return "";
  return (
    <>
      <h2>History</h2>
      <ol class="history" reversed>
        {entries.slice(-50).reverse().map((h) => (
          <li>
            <a href={queryUrl({ sql: h.query })}>
              <code>
                <Visible text={h.query.length > 300 ? h.query.slice(0, 300) + "…" : h.query} />
              </code>
            </a>{" "}
            <span class="note">
              {h.timestamp} · {count(h.rows)} rows · {h.duration_ms} ms
            </span>
          </li>
        ))}
      </ol>
    </>
  );
}

export function HomeView(
  { tables, saved, label }: {
    tables: { name: string; kind: string }[];
    saved: SavedQuery[];
    label: string;
  },
) {
  return (
    <>
      <h1>
        <Visible text={label} />
      </h1>
      {saved.length > 0
        ? (
          <>
            <h2>courier's state: questions to ask it</h2>
            <ul>
              {saved.map((s) => (
                <li>
                  <a href={queryUrl({ sql: s.sql })}>{s.title}</a>
                </li>
              ))}
            </ul>
          </>
        )
        : ""}
      <h2>Tables and views</h2>
      {tables.length === 0 ? <p class="note">The database has no tables.</p> : (
        <table class="meta">
          <tbody>
            {tables.map((t) => (
              <tr>
                <td>
                  <a href={tablePath(t.name)}>
                    <Visible text={t.name} />
                  </a>
                </td>
                <td class="note">{t.kind}</td>
                <td>
                  <a href={tablePath(t.name, "structure")}>structure</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        <a href={`${BASE}/query`}>Write a query</a>
      </p>
    </>
  );
}

export function LoginView({ next, wrong }: { next: string; wrong: boolean }) {
  return (
    <>
      <h1>Token needed</h1>
      <p>
        This server asks for its token. It is kept in a cookie for this site only, never in a URL.
      </p>
      {wrong ? <p class="error" role="alert">That token is not the server's.</p> : ""}
      <form method="post" action={`${BASE}/login`}>
        <input type="hidden" name="next" value={next} />
        <label>
          Token <input name="token" type="password" autocomplete="off" autofocus required />
        </label>{" "}
        <button type="submit">Open</button>
      </form>
    </>
  );
}
