import type { SqlClient } from "./sql.ts";
import { type DbClock, timed } from "./db_time.ts";

/**
 * One round trip of the lease protocol. No time comes from the caller: the database's clock
 * (db_time.ts) decides what has expired, and every lease renewed or taken in the step expires
 * `ttlMs` after the database's now, so a process whose clock is off by minutes neither steals
 * nor hoards channels.
 */
export interface LeaseClaim {
  holder: string;
  /** How long the leases renewed or taken, and the holder's presence, last from the step. */
  ttlMs: number;
  /** Channels handed back first (above this process's share, or no longer configured). */
  release: readonly string[];
  /** Channels this process holds and keeps: renewed if the database still says they are its. */
  renew: readonly string[];
  /** Channels it would take if free (no holder, or an expired one), in this order. */
  take: readonly string[];
  /** At most this many of `take` are taken. */
  maxTake: number;
  /**
   * When set, the share is counted afresh in the same transaction: at most
   * ceil(wanted / live processes) - renew.length are taken (and never more than maxTake), so a
   * process that just died no longer counts.
   */
  shareOf?: number;
}

export interface LeaseHolding {
  /** The channels the database now says this holder holds, each for ttlMs from the step. */
  held: string[];
  /** Processes alive (their presence not expired), this one included. */
  holders: number;
}

/** A lease as `status` shows it: the holder, and the server's view of when it ends. */
export interface LeaseView {
  holder: string;
  /** ms until it expires on the database's clock (negative: expired). */
  remainingMs: number;
}

/**
 * The `leases` and `lease_holders` tables. Every change is a conditional write inside one
 * transaction: a lease is renewed only where the row still names this holder, and taken only
 * where nobody holds it or its holder let it expire, so two processes racing for a channel
 * cannot both win it (the database serialises the transactions; the second sees the first's
 * row). The whole protocol step is one batch, hence one round trip to a server.
 *
 * The step's expiry is computed once, by the database, into the holder's presence row
 * (`lease_holders.expires_at` = now + ttl); the leases renewed and taken copy it from there,
 * and the step's answer is the holder's leases carrying exactly that expiry: what this step
 * renewed or took, never a row an earlier step left.
 */
export class LeasesTable {
  constructor(private readonly client: SqlClient, private readonly clock: DbClock = null) {}

  async claim(c: LeaseClaim): Promise<LeaseHolding> {
    const t = (sql: string, args: (string | number | null)[] = []) => timed(this.clock, sql, args);
    const expiry = "(SELECT expires_at FROM lease_holders WHERE holder = ?1)";
    const results = await this.client.batch([
      // Presence that expired is of a process that died or hung (a clean stop deletes its
      // own): gone from the count already, and without this its row would stay for good.
      t("DELETE FROM lease_holders WHERE expires_at <= NOW_MS"),
      t(
        `DELETE FROM leases WHERE holder = ?1 AND channel IN (SELECT value FROM json_each(?2))`,
        [c.holder, JSON.stringify(c.release)],
      ),
      t(
        `INSERT INTO lease_holders (holder, expires_at) VALUES (?1, NOW_MS + ?2)
         ON CONFLICT (holder) DO UPDATE SET expires_at = excluded.expires_at`,
        [c.holder, Math.round(c.ttlMs)],
      ),
      // Only where the row still names this holder: a renewal that arrives after another
      // process took the channel leaves that process's lease as it is.
      t(
        `UPDATE leases SET expires_at = ${expiry}
         WHERE holder = ?1 AND channel IN (SELECT value FROM json_each(?2))`,
        [c.holder, JSON.stringify(c.renew)],
      ),
      t(
        `INSERT INTO leases (channel, holder, expires_at, taken_at)
         SELECT value, ?1, ${expiry}, NOW_MS FROM json_each(?2)
         WHERE value NOT IN (SELECT channel FROM leases WHERE expires_at > NOW_MS AND holder <> ?1)
         ORDER BY key LIMIT CAST(min(?3, CASE WHEN ?4 IS NULL THEN ?3 ELSE max(0,
           (CAST(?4 AS INTEGER) + (SELECT count(*) FROM lease_holders WHERE expires_at > NOW_MS)
             - 1) / (SELECT count(*) FROM lease_holders WHERE expires_at > NOW_MS) - ?5) END)
           AS INTEGER)
         ON CONFLICT (channel) DO UPDATE SET holder = excluded.holder,
           expires_at = excluded.expires_at, taken_at = excluded.taken_at
         WHERE leases.expires_at <= excluded.taken_at OR leases.holder = excluded.holder`,
        [
          c.holder,
          JSON.stringify(c.take),
          Math.max(0, c.maxTake),
          c.shareOf ?? null,
          c.renew.length,
        ],
      ),
      t(`SELECT channel FROM leases WHERE holder = ?1 AND expires_at = ${expiry}`, [c.holder]),
      t("SELECT count(*) FROM lease_holders WHERE expires_at > NOW_MS"),
    ]);
    return {
      held: results[5].rows.map((row) => String(row[0])),
      holders: Math.max(1, Number(results[6].rows[0]?.[0] ?? 1)),
    };
  }

  async release(holder: string, channels: readonly string[], all: boolean): Promise<void> {
    await this.client.batch(
      all
        ? [
          { sql: "DELETE FROM leases WHERE holder = ?", args: [holder] },
          { sql: "DELETE FROM lease_holders WHERE holder = ?", args: [holder] },
        ]
        : [{
          sql: `DELETE FROM leases WHERE holder = ?
                AND channel IN (SELECT value FROM json_each(?))`,
          args: [holder, JSON.stringify(channels)],
        }],
    );
  }

  /** Who holds which channel, and for how long yet on the database's clock. */
  async all(): Promise<Map<string, LeaseView>> {
    const rs = await this.client.execute(
      timed(this.clock, "SELECT channel, holder, expires_at - NOW_MS FROM leases"),
    );
    return new Map(
      rs.rows.map((row) => [String(row[0]), {
        holder: String(row[1]),
        remainingMs: Number(row[2]),
      }]),
    );
  }
}
