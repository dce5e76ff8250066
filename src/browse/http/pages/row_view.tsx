/** One row: every value in full, its foreign keys followed, and the rows that reference it. */
import { blobBytes, FullValue, isBlob, sizeText, Visible } from "./cells.tsx";
import type { ForeignKey } from "../../sql/introspect.ts";
import type { TableInfo } from "./reads.ts";
import { Heading, rowsText } from "./table_view.tsx";
import { cellUrl, equalsUrl, tablePath } from "./urls.ts";

export interface Referrer {
  fk: ForeignKey;
  value: unknown;
  count: number;
}

export interface RowPage {
  info: TableInfo;
  key: string;
  columns: string[];
  row: unknown[] | null;
  fks: ForeignKey[];
  referrers: Referrer[];
}

export function RowView({ r }: { r: RowPage }) {
  const { info } = r;
  const fkOf = new Map(r.fks.filter((f) => f.single && f.to !== null).map((f) => [f.from, f]));
  return (
    <>
      <Heading info={info} current="rows" />
      <h2>
        Row <code>{r.key}</code>
      </h2>
      {r.row === null
        ? <p class="error">No row has this key (it may have been deleted).</p>
        : (
          <dl class="row">
            {r.columns.map((c, i) => {
              const v = r.row![i];
              const fk = fkOf.get(c);
              return (
                <>
                  <dt>
                    <Visible text={c} />
                  </dt>
                  <dd>
                    <FullValue value={v} />
                    {fk && v !== null
                      ? (
                        <>
                          {" "}
                          <a href={equalsUrl(fk.table, fk.to!, v)}>
                            → <Visible text={fk.table} />
                          </a>
                        </>
                      )
                      : ""}
                    {isBlob(v) || (typeof v === "string" && v.length > 0)
                      ? (
                        <>
                          {" "}
                          <a href={cellUrl(info.name, r.key, c, true)} download>
                            download{isBlob(v) ? ` (${sizeText(blobBytes(v).length)})` : ""}
                          </a>
                        </>
                      )
                      : ""}
                  </dd>
                </>
              );
            })}
          </dl>
        )}
      <h2>Referenced by</h2>
      {r.referrers.length === 0 ? <p class="note">no rows of other tables point here</p> : (
        <ul>
          {r.referrers.map((x) => (
            <li>
              <a href={equalsUrl(x.fk.child, x.fk.from, x.value)}>
                {rowsText(x.count)} of <Visible text={x.fk.child} /> (by{" "}
                <Visible text={x.fk.from} />)
              </a>
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href={tablePath(info.name)}>
          All rows of <Visible text={info.name} />
        </a>
      </p>
    </>
  );
}

export function CellView(
  { info, key, column, value }: { info: TableInfo; key: string; column: string; value: unknown },
) {
  return (
    <>
      <Heading info={info} current="rows" />
      <h2>
        <Visible text={column} /> of row <code>{key}</code>
      </h2>
      <p>
        {typeof value === "string" ? `${value.length.toLocaleString("en-US")} characters · ` : ""}
        <a href={cellUrl(info.name, key, column, true)} download>download</a>
      </p>
      <FullValue value={value} />
    </>
  );
}
