// deno-lint-ignore-file jsx-key -- rendered once on the server: no list is ever diffed.
/** The rows of a table or view: sort, filters, paging, downloads, the SQL that ran. */
import { Cell, type CellLinks, Visible } from "./cells.tsx";
import type { ForeignKey } from "../../sql/introspect.ts";
import type { TableInfo } from "./reads.ts";
import { COUNT_LIMIT, type Filter, OPERATORS, type Sort, type Statement } from "./table_sql.ts";
import {
  cellUrl,
  downloadUrl,
  equalsUrl,
  queryUrl,
  rowUrl,
  SIZES,
  tablePath,
  type TableState,
  tableUrl,
} from "./urls.ts";
import { paramsText } from "./params_text.ts";

export interface TablePage {
  info: TableInfo;
  state: TableState;
  defaultSize: number;
  columns: string[];
  rows: unknown[][];
  /** Each row's own key (rowid or primary key) as URL text, when the table has one. */
  rowKeys: (string | null)[];
  firstKey?: string;
  lastKey?: string;
  hasPrev: boolean;
  hasNext: boolean;
  /** The number of the page shown, when known. */
  page: number | null;
  count: number;
  ran: Statement;
  offset: boolean;
  fks: ForeignKey[];
}

export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** "99,812 rows", or "more than 100,000 rows" when the count stopped. */
export function rowsText(n: number): string {
  if (n > COUNT_LIMIT) return `more than ${count(COUNT_LIMIT)} rows`;
  return n === 1 ? "1 row" : `${count(n)} rows`;
}

/** What a download link downloads, in its own words. */
export function downloadText(n: number, format: string): string {
  const what = n > COUNT_LIMIT
    ? `all rows (more than ${count(COUNT_LIMIT)})`
    : `all ${rowsText(n)}`;
  return `${what}, ${format.toUpperCase()}`;
}

function nextSort(sort: Sort | undefined, column: string): Sort | undefined {
  if (sort?.column !== column) return { column, desc: false };
  return sort.desc ? undefined : { column, desc: true };
}

/** A table's name and kind, and the tabs of its views. */
export function Heading({ info, current }: { info: TableInfo; current: "rows" | "structure" }) {
  return (
    <>
      <h1>
        <Visible text={info.name} />
        {info.kind !== "table"
          ? <span class="kind">{info.kind === "view" ? "view" : "virtual table"}</span>
          : ""}
      </h1>
      <nav class="tabs" aria-label="Views of this table">
        <a href={tablePath(info.name)} aria-current={current === "rows" ? "page" : undefined}>
          Rows
        </a>
        <a
          href={tablePath(info.name, "structure")}
          aria-current={current === "structure" ? "page" : undefined}
        >
          Structure
        </a>
      </nav>
    </>
  );
}

function FilterForm({ p }: { p: TablePage }) {
  const { state, info } = p;
  const rows: (Filter | null)[] = [...state.filters, null];
  return (
    <form class="filters" method="get" action={tablePath(info.name)} role="search">
      {hiddenState({ ...state, filters: [] }, p.defaultSize)}
      {rows.map((f, i) => (
        <div class="filter">
          <select name="fc" aria-label={`filter ${i + 1} column`}>
            {f === null ? <option value="">column…</option> : ""}
            {info.shape.columns.map((c) => <option value={c} selected={f?.column === c}>{c}
            </option>)}
          </select>
          <select name="fo" aria-label={`filter ${i + 1} operator`}>
            {Object.entries(OPERATORS).map(([op, label]) => (
              <option value={op} selected={f?.op === op}>{label}</option>
            ))}
          </select>
          <input
            name="fv"
            value={f?.value ?? ""}
            aria-label={`filter ${i + 1} value`}
            data-focus-key={i === 0 ? "" : undefined}
            placeholder={f === null ? "value (press / to focus)" : undefined}
          />
          {f !== null
            ? (
              <a
                href={tableUrl(info.name, {
                  sort: state.sort,
                  filters: state.filters.filter((_, j) => j !== i),
                  size: state.size,
                }, p.defaultSize)}
              >
                remove
              </a>
            )
            : ""}
        </div>
      ))}
      <div>
        <button type="submit">Apply filters</button> {state.filters.length > 0
          ? (
            <a
              href={tableUrl(
                info.name,
                { sort: state.sort, filters: [], size: state.size },
                p.defaultSize,
              )}
            >
              clear all
            </a>
          )
          : ""}
      </div>
    </form>
  );
}

function Pager({ p }: { p: TablePage }) {
  const { state, info } = p;
  const base = { sort: state.sort, filters: state.filters, size: state.size };
  const url = (extra: Partial<Parameters<typeof tableUrl>[1]>) =>
    tableUrl(info.name, { ...base, ...extra }, p.defaultSize);
  const lastPage = p.count <= COUNT_LIMIT ? Math.max(1, Math.ceil(p.count / state.size)) : null;
  const keyed = info.shape.key.kind !== "none";
  const prev = !p.hasPrev
    ? null
    : keyed && p.firstKey !== undefined
    ? url({ before: p.firstKey, page: p.page !== null ? p.page - 1 : undefined })
    : p.page !== null
    ? url({ page: p.page - 1 })
    : null;
  const next = !p.hasNext
    ? null
    : keyed && p.lastKey !== undefined
    ? url({ after: p.lastKey, page: p.page !== null ? p.page + 1 : undefined })
    : p.page !== null
    ? url({ page: p.page + 1 })
    : null;
  const from = p.page !== null ? (p.page - 1) * state.size + 1 : null;
  return (
    <div class="pager">
      {p.hasPrev ? <a href={url({})}>« First</a> : <span class="note">« First</span>}
      {prev ? <a rel="prev" href={prev}>‹ Previous</a> : <span class="note">‹ Previous</span>}
      <span>
        {p.rows.length === 0
          ? "no rows"
          : from !== null
          ? `rows ${count(from)}–${count(from + p.rows.length - 1)}`
          : `${count(p.rows.length)} rows`}
        {p.page !== null
          ? ` · page ${count(p.page)}${lastPage ? ` of ${count(lastPage)}` : ""}`
          : ""}
      </span>
      {next ? <a rel="next" href={next}>Next ›</a> : <span class="note">Next ›</span>}
      {p.hasNext
        ? <a href={url({ last: true, page: lastPage ?? undefined })}>Last »</a>
        : <span class="note">Last »</span>}
      <form method="get" action={tablePath(info.name)}>
        {hiddenState(state, p.defaultSize)}
        <label>
          Page <input name="page" type="number" min="1" max={lastPage ?? undefined} size={6} />
        </label>
        <button type="submit">Go</button>
      </form>
      <form method="get" action={tablePath(info.name)}>
        {hiddenState({ ...state, size: p.defaultSize }, p.defaultSize)}
        <label>
          Rows per page{" "}
          <select name="size">
            {SIZES.filter((s) => s <= Math.max(p.defaultSize, state.size, 25) * 10).map((s) => (
              <option value={String(s)} selected={s === state.size}>{s}</option>
            ))}
          </select>
        </label>
        <button type="submit">Set</button>
      </form>
    </div>
  );
}

/** The sort, size and filters as hidden fields, for the forms that change one thing only. */
function hiddenState(state: TableState, defaultSize: number) {
  return (
    <>
      {state.sort ? <input type="hidden" name="sort" value={state.sort.column} /> : ""}
      {state.sort?.desc ? <input type="hidden" name="desc" value="1" /> : ""}
      {state.size !== defaultSize
        ? <input type="hidden" name="size" value={String(state.size)} />
        : ""}
      {state.filters.map((f) => (
        <>
          <input type="hidden" name="fc" value={f.column} />
          <input type="hidden" name="fo" value={f.op} />
          <input type="hidden" name="fv" value={f.value} />
        </>
      ))}
    </>
  );
}

export function TableView({ p }: { p: TablePage }) {
  const { info, state } = p;
  const fkOf = new Map(p.fks.filter((f) => f.single && f.to !== null).map((f) => [f.from, f]));
  const sortLink = (column: string) =>
    tableUrl(info.name, {
      sort: nextSort(state.sort, column),
      filters: state.filters,
      size: state.size,
    }, p.defaultSize);
  return (
    <>
      <Heading info={info} current="rows" />
      {info.shape.key.kind === "none"
        ? (
          <p class="note">
            Pages are read with OFFSET ({info.shape.key.why}): a far page costs as much as reading
            every row before it.
          </p>
        )
        : ""}
      {p.offset && info.shape.key.kind !== "none"
        ? (
          <p class="note">
            This page was reached with OFFSET (a jump); Next and Previous go by key.
          </p>
        )
        : ""}
      <FilterForm p={p} />
      <p>
        <strong>{rowsText(p.count)}</strong>
        {state.filters.length > 0 ? " match the filters" : ""}
        {state.sort
          ? (
            <>
              {", sorted by "}
              <Visible text={state.sort.column} />
              {state.sort.desc ? " descending" : " ascending"}
            </>
          )
          : ""}
      </p>
      <div class="downloads">
        Download:
        {["csv", "json", "xml"].map((f) => (
          <a href={downloadUrl(info.name, state, f)} download>{downloadText(p.count, f)}</a>
        ))}
      </div>
      <Pager p={p} />
      <div class="scroll">
        <table class="rows">
          <thead>
            <tr>
              {info.shape.key.kind !== "none"
                ? (
                  <th>
                    <span class="note">row</span>
                  </th>
                )
                : ""}
              {p.columns.map((c) => {
                const sorted = state.sort?.column === c ? state.sort : undefined;
                return (
                  <th
                    aria-sort={sorted ? (sorted.desc ? "descending" : "ascending") : undefined}
                    title={fkOf.has(c) ? `references ${fkOf.get(c)!.table}` : undefined}
                  >
                    <a href={sortLink(c)}>
                      <Visible text={c} />
                      {sorted ? (sorted.desc ? " ▼" : " ▲") : ""}
                    </a>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {p.rows.map((row, r) => {
              const key = p.rowKeys[r];
              return (
                <tr>
                  {info.shape.key.kind !== "none"
                    ? <td>{key !== null ? <a href={rowUrl(info.name, key)}>→</a> : ""}</td>
                    : ""}
                  {row.map((v, i) => {
                    const column = p.columns[i];
                    const fk = fkOf.get(column);
                    const links: CellLinks = {};
                    if (key !== null) {
                      links.view = cellUrl(info.name, key, column);
                      links.raw = cellUrl(info.name, key, column, true);
                    }
                    if (fk && v !== null) links.ref = equalsUrl(fk.table, fk.to!, v);
                    return <Cell value={v} links={links} />;
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <details>
        <summary>Show SQL</summary>
        <pre>{p.ran.sql}</pre>
        <p>
          Parameters: <code>{paramsText(p.ran.params)}</code>
        </p>
        <a href={queryUrl({ sql: p.ran.sql, params: paramsText(p.ran.params) })}>
          Open in the query editor
        </a>
      </details>
    </>
  );
}
