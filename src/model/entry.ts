/**
 * One item of a feed, whatever its format. This is the contract between feed reading
 * (src/feeds) and delivery (src/forward, src/messenger).
 */
export interface Entry {
  /** Stable identity: guid / atom:id, else the link, else a hash of title + content. */
  id: string;
  /** Absolute URL of the entry, resolved against xml:base / the final feed URL; null if none. */
  link: string | null;
  /** Plain text: HTML stripped, entities decoded, whitespace collapsed. May be "". */
  title: string;
  /** Publication date (RSS pubDate / dc:date, Atom published, else updated); null if none. */
  published: Date | null;
  /** Last update date when the feed gives one; null otherwise. */
  updated: Date | null;
  /** Plain-text summary or content, possibly empty. */
  summary: string;
  /**
   * The entry's categories or tags as plain text (RSS `<category>`, Atom `<category term>`), in
   * document order; absent when it has none.
   */
  categories?: string[];
}
