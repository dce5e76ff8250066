/** A table's structure: columns, indexes, foreign keys both ways, triggers, its CREATE. */
import { Head, Visible } from "./cells.tsx";
import type { ForeignKey, IndexInfo } from "../../sql/introspect.ts";
import type { TableInfo } from "./reads.ts";
import { Heading } from "./table_view.tsx";
import { tablePath } from "./urls.ts";

export interface StructurePage {
  info: TableInfo;
  indexes: IndexInfo[];
  fks: ForeignKey[];
  referencedBy: ForeignKey[];
  triggers: { name: string; sql: string }[];
}

const HIDDEN_KINDS = ["", "hidden", "generated (virtual)", "generated (stored)"];

function keyText(info: TableInfo): string {
  const key = info.shape.key;
  if (key.kind === "rowid") return `rowid (pages by rowid)`;
  if (key.kind === "pk") return `primary key ${key.columns.join(", ")} (pages by key)`;
  return `none: ${key.why} (pages by OFFSET)`;
}

export function StructureView({ s }: { s: StructurePage }) {
  const { info } = s;
  return (
    <>
      <Heading info={info} current="structure" />
      <p class="note">
        {info.kind}
        {info.withoutRowid ? ", WITHOUT ROWID" : ""}
        {info.strict ? ", STRICT" : ""}. Key: {keyText(info)}.
      </p>
      <h2>Columns</h2>
      <div class="scroll">
        <table class="meta">
          <Head
            names={["name", "type", "NOT NULL", "default", "primary key", "generated / hidden"]}
          />
          <tbody>
            {info.columns.map((c) => (
              <tr>
                <td>
                  <Visible text={c.name} />
                </td>
                <td>{c.type}</td>
                <td>{c.notNull ? "yes" : ""}</td>
                <td>{c.default === null ? "" : <code>{c.default}</code>}</td>
                <td>{c.pk > 0 ? String(c.pk) : ""}</td>
                <td>{HIDDEN_KINDS[c.hidden] ?? String(c.hidden)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {info.kind === "table"
        ? (
          <>
            <h2>Indexes</h2>
            {s.indexes.length === 0 ? <p class="note">none</p> : (
              <table class="meta">
                <Head names={["name", "columns", "unique", "partial", "made by"]} />
                <tbody>
                  {s.indexes.map((ix) => (
                    <tr>
                      <td>
                        <Visible text={ix.name} />
                      </td>
                      <td>
                        <Visible text={ix.columns.map((c) => c ?? "<expression>").join(", ")} />
                      </td>
                      <td>{ix.unique ? "unique" : ""}</td>
                      <td>{ix.partial ? <code>{ix.sql ?? "yes"}</code> : ""}</td>
                      <td>
                        {ix.origin === "pk"
                          ? "PRIMARY KEY"
                          : ix.origin === "u"
                          ? "UNIQUE constraint"
                          : "CREATE INDEX"}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <h2>Foreign keys</h2>
            {s.fks.length === 0 ? <p class="note">none</p> : (
              <ul>
                {s.fks.map((f) => (
                  <li>
                    <Visible text={f.from} /> →{" "}
                    <a href={tablePath(f.table)}>
                      <Visible text={f.table} />
                    </a>
                    {f.to !== null
                      ? (
                        <>
                          .<Visible text={f.to} />
                        </>
                      )
                      : ""}
                    <span class="note">
                      {` on update ${f.onUpdate.toLowerCase()}, on delete ${f.onDelete.toLowerCase()}`}
                    </span>
                  </li>
                ))}
              </ul>
            )}
            <h2>Referenced by</h2>
            {s.referencedBy.length === 0 ? <p class="note">no table references this one</p> : (
              <ul>
                {s.referencedBy.map((f) => (
                  <li>
                    <a href={tablePath(f.child)}>
                      <Visible text={f.child} />
                    </a>
                    .<Visible text={f.from} /> → <Visible text={f.to ?? "(primary key)"} />
                  </li>
                ))}
              </ul>
            )}
            <h2>Triggers</h2>
            {s.triggers.length === 0 ? <p class="note">none</p> : (
              s.triggers.map((t) => (
                <>
                  <h3>
                    <Visible text={t.name} />
                  </h3>
                  <pre><Visible text={t.sql} layout /></pre>
                </>
              ))
            )}
          </>
        )
        : ""}
      <h2>{info.kind === "view" ? "CREATE VIEW" : "CREATE statement"}</h2>
      <pre><Visible text={info.sql ?? "(none: built in)"} layout /></pre>
    </>
  );
}
