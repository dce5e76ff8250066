/**
 * The page's routes: `/` and everything under /db (urls.ts lists the forms). Every read goes
 * to the API's worker pool (reads.ts); downloads stream from it through the API's own answer.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { Answer } from "../../pool/pool.ts";
import type { History } from "../history.ts";
import { HttpError } from "../http_error.ts";
import { parseFormat, parseParams } from "../input.ts";
import { bodyLimitGuard } from "../middleware/body_limit.ts";
import { originGuard } from "../middleware/origin.ts";
import { blobBytes, isBlob, visibleString } from "./cells.tsx";
import { type Frame, htmlResponse, Layout } from "./layout.tsx";
import { operatorQueries } from "./operator_queries.ts";
import { paramsText } from "./params_text.ts";
import { HomeView, LoginView, type PlanRow, type QueryPage, QueryView } from "./query_view.tsx";
import { checkView, Reader, type Rows, type Run, type TableInfo } from "./reads.ts";
import { CellView, type Referrer, RowView } from "./row_view.tsx";
import { timingSafeEqual } from "hono/utils/buffer";
import { COOKIE, safeNext, sessionGuard, sessionValue } from "./session.ts";
import { setCookie } from "hono/cookie";
import { StructureView } from "./structure_view.tsx";
import {
  bindable,
  COUNT_LIMIT,
  countQuery,
  downloadQuery,
  keyOf,
  keyParts,
  pageQuery,
  type PageStart,
  quoteName,
  rowQuery,
} from "./table_sql.ts";
import { type TablePage, TableView } from "./table_view.tsx";
import { BASE, DEFAULT_SIZE, positiveInt, readTableState } from "./urls.ts";
import { foreignKeys, indexes, listTables, referencedBy, triggers } from "../../sql/introspect.ts";
import { singleStatement, startsQuery } from "../../sql/sql_text.ts";

export interface PagesOptions {
  /** Runs a read for the page request `from` (its client's, cancelled with it). */
  run: (req: Parameters<Run>[0], download: boolean, from: Request) => Promise<Answer>;
  /** The API's own response for an answer (a download streams through it). */
  respond: (answer: Answer) => Response;
  history: History;
  maxRows: number;
  label: string;
  write: boolean;
  token?: string;
}

/** Mounts the pages on `app`: `/` and `/db/...`. */
export function mountPages(app: Hono, o: PagesOptions): void {
  const defaultSize = Math.min(DEFAULT_SIZE, o.maxRows);
  const reader = (c: Context) =>
    new Reader((req, download) => o.run(req, download, c.req.raw), o.maxRows);
  /** The frame without the list of tables: for sign-in, and where the list cannot be read. */
  const bare: Frame = { label: o.label, write: o.write, tables: [] };
  const frame = async (r: Reader, current?: string): Promise<Frame> => ({
    ...bare,
    tables: await listTables(r.all),
    current,
  });
  const page = async (
    c: Context,
    title: string,
    body: (r: Reader) => Promise<Child>,
    current?: string,
  ): Promise<Response> => {
    const r = reader(c);
    // A page's reads run one after another: a request holds at most one worker or queue
    // place, as an API call does, so pages under load queue like API calls and never fill the
    // queue by themselves; and a write runs alone (a read beside it could hold its lock).
    try {
      const content = await body(r);
      return htmlResponse(
        <Layout title={title} frame={await frame(r, current)}>{content}</Layout>,
      );
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return htmlResponse(
        <Layout title="Error" frame={await frame(r, current).catch(() => bare)}>
          <h1>{title}</h1>
          <p class="error" role="alert">{error.message}</p>
        </Layout>,
        error.status,
      );
    }
  };

  const pages = new Hono();
  const login = (next: string, wrong = false) =>
    htmlResponse(
      <Layout title="Token needed" frame={bare}>
        <LoginView next={next} wrong={wrong} />
      </Layout>,
      401,
    );
  pages.post("/login", originGuard([]), bodyLimitGuard(64 * 1024), async (c) => {
    const form = new URLSearchParams(await c.req.text());
    const next = safeNext(form.get("next"));
    if (o.token === undefined) return c.redirect(next, 303);
    if (!await timingSafeEqual(form.get("token") ?? "", o.token)) return login(next, true);
    setCookie(c, COOKIE, await sessionValue(o.token), {
      path: "/",
      httpOnly: true,
      sameSite: "Strict",
    });
    return c.redirect(next, 303);
  });
  if (o.token !== undefined) {
    const guard = sessionGuard(sessionValue(o.token), (c) => {
      const url = new URL(c.req.url);
      return login(safeNext(url.pathname + url.search));
    });
    app.use("/", guard);
    pages.use("*", guard);
  }

  app.get("/", (c) =>
    page(c, o.label, async (r) => {
      const tables = await listTables(r.all);
      const saved = operatorQueries(tables.map((t) => t.name));
      return <HomeView tables={tables} saved={saved} label={o.label} />;
    }));

  const tableInfo = async (r: Reader, name: string): Promise<TableInfo> => {
    const info = await r.shape(name);
    if (!info) throw new HttpError(404, `no table or view named ${quoteName(name)}`);
    return info;
  };
  const keyParam = (text: string | null | undefined, name: string): unknown[] => {
    if (text === null || text === undefined) throw new HttpError(400, `${name} is missing`);
    const key = parseParams(text);
    if (!Array.isArray(key)) throw new HttpError(400, `${name} must be a JSON array`);
    return key;
  };

  /** A page about one table or view (`view`: its part of the path), 404 when there is none. */
  const tableRoute = (
    view: string,
    body: (c: Context, r: Reader, info: TableInfo) => Promise<Child>,
  ) =>
    pages.get(`/table/:table${view ? "/" + view : ""}`, (c) => {
      const name = c.req.param("table");
      const title = view ? `${name}: ${view}` : name;
      return page(c, title, async (r) => body(c, r, await tableInfo(r, name)), name);
    });

  tableRoute("", async (c, r, info) => {
    const st = checkView(info, readTableState(c.req.queries(), o.maxRows));
    let start: PageStart = st.start;
    if (start.kind === "after") start = { kind: "after", key: keyParam(st.afterText, "after") };
    if (start.kind === "before") {
      start = { kind: "before", key: keyParam(st.beforeText, "before") };
    }
    const pq = pageQuery(info.shape, st.filters, st.sort, start, st.size);
    const result = await r.rows(pq, { maxRows: st.size + 1 });
    const count = await r.count(countQuery(info.shape, st.filters));
    const fks = await foreignKeys(r.all, info.name);
    const more = result.rows.length > st.size;
    let rows = result.rows.slice(0, st.size);
    if (pq.reversed) rows = rows.reverse();
    const parts = keyParts(info.shape, st.sort);
    const own = keyParts(info.shape, undefined).map((p) => parts.indexOf(p));
    const rowKeys = rows.map((row) =>
      own.length > 0 && pq.keyColumns > 0
        ? paramsText(own.map((i) => bindable(row[2 * i], row[2 * i + 1])))
        : null
    );
    const lastPage = count <= COUNT_LIMIT ? Math.max(1, Math.ceil(count / st.size)) : null;
    const p: TablePage = {
      info,
      state: { ...st, start },
      defaultSize,
      columns: result.columns.slice(pq.keyColumns),
      rows: rows.map((row) => row.slice(pq.keyColumns)),
      rowKeys,
      firstKey: pq.keyColumns > 0 && rows.length > 0
        ? paramsText(keyOf(rows[0], pq.keyColumns))
        : undefined,
      lastKey: pq.keyColumns > 0 && rows.length > 0
        ? paramsText(keyOf(rows[rows.length - 1], pq.keyColumns))
        : undefined,
      hasPrev: start.kind === "first"
        ? false
        : start.kind === "after"
        ? true
        : start.kind === "offset"
        ? start.page > 1
        : more,
      hasNext: start.kind === "before" ? true : start.kind === "last" ? false : more,
      page: start.kind === "first" || (start.kind === "before" && !more)
        ? 1
        : start.kind === "offset"
        ? start.page
        : start.kind === "last"
        // The last page, read backwards, holds a full page: in line with the others only when
        // the count is a whole number of pages.
        ? (count % st.size === 0 ? lastPage : null)
        : st.page > 1 || c.req.query("page") !== undefined
        ? st.page
        : null,
      count,
      ran: pq,
      offset: pq.offset,
      fks,
    };
    return <TableView p={p} />;
  });

  tableRoute("structure", async (_c, r, info) => {
    const s = {
      info,
      indexes: await indexes(r.all, info.name),
      fks: await foreignKeys(r.all, info.name),
      referencedBy: await referencedBy(r.all, info.name),
      triggers: await triggers(r.all, info.name),
    };
    return <StructureView s={s} />;
  });

  tableRoute("row", async (c, r, info) => {
    const keyTextIn = c.req.query("key");
    const key = keyParam(keyTextIn, "key");
    const found = await r.rows(rowQuery(info.shape, key), { maxRows: 2 });
    const fks = await foreignKeys(r.all, info.name);
    const refs = await referencedBy(r.all, info.name);
    const row = found.rows[0] ?? null;
    const referrers: Referrer[] = [];
    if (row !== null) {
      for (const fk of refs.filter((f) => f.single && f.to !== null)) {
        const at = found.columns.indexOf(fk.to!);
        const value = at >= 0 ? row[at] : null;
        if (value === null) continue;
        const n = await r.count({
          sql: `SELECT count(*) FROM (SELECT 1 FROM ${quoteName(fk.child)} WHERE ${
            quoteName(fk.from)
          } = ? LIMIT ?)`,
          params: [value, COUNT_LIMIT + 1],
        });
        referrers.push({ fk, value, count: n });
      }
      referrers.sort((a, b) =>
        a.fk.child < b.fk.child ? -1 : a.fk.child > b.fk.child ? 1 : a.fk.id - b.fk.id
      );
    }
    return (
      <RowView
        r={{ info, key: keyTextIn!, columns: found.columns, row, fks, referrers }}
      />
    );
  });

  const cellValue = async (r: Reader, info: TableInfo, c: Context) => {
    const column = c.req.query("column") ?? "";
    if (!info.shape.columns.includes(column)) {
      throw new HttpError(400, `no column ${quoteName(column)} in ${quoteName(info.name)}`);
    }
    const key = keyParam(c.req.query("key"), "key");
    const statement = rowQuery(info.shape, key);
    statement.sql = statement.sql.replace(/^SELECT \*/, `SELECT ${quoteName(column)}`);
    const found = await r.rows(statement, { maxRows: 2 });
    if (found.rows.length === 0) throw new HttpError(404, "no row has this key");
    return { column, value: found.rows[0][0] };
  };

  pages.get("/table/:table/cell", async (c) => {
    const name = c.req.param("table");
    if (c.req.query("raw") === "1") {
      // The security headers (no sniffing, no caching) are the middleware's, as on every answer.
      const r = reader(c);
      const info = await tableInfo(r, name);
      const { column, value } = await cellValue(r, info, c);
      const blob = isBlob(value);
      const body = blob ? blobBytes(value) : value === null ? "" : String(value);
      return new Response(body, {
        headers: {
          "Content-Type": blob ? "application/octet-stream" : "text/plain; charset=utf-8",
          "Content-Disposition": fileName(`${info.name}-${column}`, blob ? "bin" : "txt"),
        },
      });
    }
    return page(c, `${name}: cell`, async (r) => {
      const info = await tableInfo(r, name);
      const { column, value } = await cellValue(r, info, c);
      return <CellView info={info} key={c.req.query("key")!} column={column} value={value} />;
    }, name);
  });

  pages.get("/table/:table/download", async (c) => {
    const name = c.req.param("table");
    const r = reader(c);
    const format = parseFormat(c.req.query("format") ?? "csv")!;
    const info = await tableInfo(r, name);
    const st = checkView(info, readTableState(c.req.queries(), o.maxRows));
    return await download(c, downloadQuery(info.shape, st.filters, st.sort), format, info.name);
  });

  const download = async (
    c: Context,
    statement: { sql: string; params?: unknown },
    format: "csv" | "json" | "xml",
    name: string,
  ) => {
    const answer = await o.run(
      {
        op: "query",
        sql: statement.sql,
        params: statement.params,
        format: format === "json" ? "json-download" : format,
        maxRows: o.maxRows,
        readOnly: true,
      },
      true,
      c.req.raw,
    );
    const res = o.respond(answer);
    if (answer.head.filename) res.headers.set("Content-Disposition", fileName(name, format));
    return res;
  };

  pages.get("/query/download", async (c) => {
    const sql = c.req.query("sql") ?? "";
    if (sql.trim() === "") throw new HttpError(400, "a query is required (sql=...)");
    const format = parseFormat(c.req.query("format") ?? "csv")!;
    return await download(c, { sql, params: parseParams(c.req.query("params")) }, format, "query");
  });

  const queryPage = (c: Context, input: { sql: string; params: string; write: boolean }) =>
    page(
      c,
      "Query",
      async (r) => {
        const size = positiveInt(c.req.query("size"), "size", defaultSize, o.maxRows);
        const pageNo = input.write ? 1 : positiveInt(c.req.query("page"), "page", 1, 1e9);
        const q: QueryPage = {
          sql: input.sql,
          params: input.params,
          write: o.write,
          page: pageNo,
          size,
          defaultSize,
          pageable: !input.write && isQuery(input.sql),
          history: o.history.list(),
        };
        if (input.sql.trim() === "") return <QueryView q={q} />;
        try {
          const params = parseParams(input.params);
          if (c.req.query("plan") === "1" && !input.write) {
            const plan = await r.rows({ sql: input.sql, params }, { op: "explain" });
            q.plan = plan.rows.map((row): PlanRow => ({
              id: Number(row[0]),
              parent: Number(row[1]),
              detail: String(row[3]),
            }));
          } else {
            // Page 1 runs the statement as written; later pages of a query read past the rows
            // before them with LIMIT/OFFSET (integers this code made, not user text).
            const sql = pageNo > 1 && q.pageable
              ? `SELECT * FROM (\n${singleStatement(input.sql).statement}\n) LIMIT ${
                size + 1
              } OFFSET ${(pageNo - 1) * size}`
              : input.sql;
            const result: Rows = await r.rows({ sql, params }, {
              maxRows: size + 1,
              readOnly: !input.write,
            });
            q.result = result;
            q.wrote = input.write;
            o.history.add(input.sql, result.stats?.duration_ms ?? 0, result.rows.length);
            q.history = o.history.list();
          }
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          q.error = error.message;
        }
        return <QueryView q={q} />;
      },
    );

  pages.get("/query", (c) =>
    queryPage(c, {
      sql: c.req.query("sql") ?? "",
      params: c.req.query("params") ?? "",
      write: false,
    }));
  pages.post("/query", originGuard([]), bodyLimitGuard(1024 * 1024), async (c) => {
    const form = new URLSearchParams(await c.req.text());
    if (!o.write) {
      throw new HttpError(403, "this server is read-only: start it with --write to change data");
    }
    return await queryPage(c, {
      sql: form.get("sql") ?? "",
      params: form.get("params") ?? "",
      write: true,
    });
  });

  app.route(BASE, pages);
}

/** Whether a statement is a query whose rows can be paged (SELECT, WITH, VALUES). */
function isQuery(sql: string): boolean {
  try {
    return startsQuery(singleStatement(sql).tokens[0]);
  } catch {
    return false;
  }
}

/** A Content-Disposition naming a download after what it holds, safe in any name. */
function fileName(name: string, ext: string): string {
  const shown = `${visibleString(name)}.${ext}`;
  const ascii = shown.replace(/[^A-Za-z0-9._-]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(shown)}`;
}
