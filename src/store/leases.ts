import type { SqlClient } from "./sql.ts";

/** One round trip of the lease protocol; times are ms since the epoch on the caller's clock. */
export interface LeaseClaim {
  holder: string;
  now: number;
  /** The expiry written on every lease renewed or taken, and on the holder's presence. */
  expiresAt: number;
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
  /** The channels the database now says this holder holds until `expiresAt`. */
  held: string[];
  /** Processes alive (their presence not expired), this one included. */
  holders: number;
}

/**
 * The `leases` and `lease_holders` tables. Every change is a conditional write inside one
 * transaction: a lease is renewed only where the row still names this holder, and taken only
 * where nobody holds it or its holder let it expire, so two processes racing for a channel
 * cannot both win it (the database serialises the transactions; the second sees the first's
 * row). The whole protocol step is one batch, hence one round trip to a server.
 */
export class LeasesTable {
  constructor(private readonly client: SqlClient) {}

  async claim(c: LeaseClaim): Promise<LeaseHolding> {
    const results = await this.client.batch([
      // Presence that expired is of a process that died or hung (a clean stop deletes its
      // own): gone from the count already, and without this its row would stay for good.
      { sql: "DELETE FROM lease_holders WHERE expires_at <= ?", args: [c.now] },
      {
        sql: `DELETE FROM leases WHERE holder = ? AND channel IN (SELECT value FROM json_each(?))`,
        args: [c.holder, JSON.stringify(c.release)],
      },
      {
        sql: `INSERT INTO lease_holders (holder, expires_at) VALUES (?, ?)
              ON CONFLICT (holder) DO UPDATE SET expires_at = excluded.expires_at`,
        args: [c.holder, c.expiresAt],
      },
      {
        sql: `UPDATE leases SET expires_at = ?1
              WHERE holder = ?2 AND channel IN (SELECT value FROM json_each(?3))`,
        args: [c.expiresAt, c.holder, JSON.stringify(c.renew)],
      },
      {
        sql: `INSERT INTO leases (channel, holder, expires_at, taken_at)
              SELECT value, ?1, ?2, ?3 FROM json_each(?4)
              WHERE value NOT IN (SELECT channel FROM leases WHERE expires_at > ?3 AND holder <> ?1)
              ORDER BY key LIMIT CAST(min(?5, CASE WHEN ?6 IS NULL THEN ?5 ELSE max(0,
                (CAST(?6 AS INTEGER) + (SELECT count(*) FROM lease_holders WHERE expires_at > ?3)
                  - 1) / (SELECT count(*) FROM lease_holders WHERE expires_at > ?3) - ?7) END)
                AS INTEGER)
              ON CONFLICT (channel) DO UPDATE SET holder = excluded.holder,
                expires_at = excluded.expires_at, taken_at = excluded.taken_at
              WHERE leases.expires_at <= excluded.taken_at OR leases.holder = excluded.holder`,
        args: [
          c.holder,
          c.expiresAt,
          c.now,
          JSON.stringify(c.take),
          Math.max(0, c.maxTake),
          c.shareOf ?? null,
          c.renew.length,
        ],
      },
      {
        sql: "SELECT channel FROM leases WHERE holder = ? AND expires_at = ?",
        args: [c.holder, c.expiresAt],
      },
      {
        sql: "SELECT count(*) FROM lease_holders WHERE expires_at > ?",
        args: [c.now],
      },
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

  async all(): Promise<Map<string, { holder: string; expiresAt: number }>> {
    const rs = await this.client.execute("SELECT channel, holder, expires_at FROM leases");
    return new Map(
      rs.rows.map((row) => [String(row[0]), {
        holder: String(row[1]),
        expiresAt: Number(row[2]),
      }]),
    );
  }
}
