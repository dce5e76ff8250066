import type { Db } from "./db.ts";
import { checkProgram, type Op, type ProgramRules, usesVtabs, writes } from "./guard.ts";

/** How many listed programs a worker keeps. */
const KEPT = 256;

/** What a program that passed its check does: writes, or opens a virtual table (not quiet). */
export interface Verdict {
  writes: boolean;
  quiet: boolean;
}

/** Checks a program (refusals throw) and says what it does. */
export function verdictOf(ops: Op[], rules: ProgramRules): Verdict {
  checkProgram(ops, rules);
  return { writes: writes(ops), quiet: !usesVtabs(ops) };
}

/**
 * The EXPLAIN listings of the statements a read-only worker checked, by schema version and
 * exact text: listing a program cost more than running a point query (about 40 % of a worker's
 * time on one). A program is a function of its text, the schema and the connection's settings.
 * The settings are back at their baseline before every request (settings.ts); the schema
 * version is read after the statement was prepared, so a schema changed since (by anyone) is
 * listed anew, as SQLite itself recompiles. Programs that open virtual tables are never kept:
 * their allowed pointers are taken at each moment. A --write worker keeps nothing, since its
 * own statements can change the temp schema, whose version is separate.
 */
export class ProgramCache {
  #kept = new Map<string, Op[]>();
  /**
   * Verdicts on kept listings, by the rules' write flag. A kept program opens no virtual table,
   * so its verdict depends on the listing and that flag alone; checking the wrapped listing
   * again cost a point query as much as its SQLite read. Refusals are not kept.
   */
  #verdicts = new WeakMap<Op[], Map<boolean, Verdict>>();

  async program(
    db: Db,
    sql: string,
    probes: () => Promise<Map<string, string>>,
  ): Promise<{ ops: Op[]; vtabs: Map<string, string> }> {
    const version = (await db.often("PRAGMA schema_version"))[0];
    const key = `${version}\n${sql}`;
    const kept = this.#kept.get(key);
    if (kept) return { ops: kept, vtabs: new Map() };
    const listed = await db.program(sql, probes);
    if (!usesVtabs(listed.ops)) {
      this.#kept.set(key, listed.ops);
      this.#verdicts.set(listed.ops, new Map());
      if (this.#kept.size > KEPT) this.#kept.delete(this.#kept.keys().next().value!);
    }
    return listed;
  }

  /** verdictOf, once per kept listing and write flag. */
  check(ops: Op[], rules: ProgramRules): Verdict {
    const known = this.#verdicts.get(ops);
    const found = known?.get(rules.write);
    if (found) return found;
    const verdict = verdictOf(ops, rules);
    known?.set(rules.write, verdict);
    return verdict;
  }
}
