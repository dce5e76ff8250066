/** The demo's feeds: small, realistic documents served by the demo itself. */

/** The story the news feed and its mirror both carry: merging posts it once. */
const SHARED_STORY = `
    <item>
      <title>Rust &amp; Deno: a tale of two runtimes</title>
      <link>https://news.example/2024/05/runtimes</link>
      <guid>https://news.example/2024/05/runtimes</guid>
      <pubDate>Wed, 01 May 2024 09:30:00 GMT</pubDate>
    </item>`;

export const NEWS_RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title>Courier Demo News</title>
    <link>https://news.example/</link>
    <description>Made-up news for the courier demo</description>${SHARED_STORY}
    <item>
      <title><![CDATA[Why <b>bold</b> titles get their tags stripped]]></title>
      <link>https://news.example/2024/04/tags</link>
      <guid>https://news.example/2024/04/tags</guid>
      <pubDate>Tue, 30 Apr 2024 18:00:00 GMT</pubDate>
    </item>
    <item>
      <title>Feeds are still the open web's best API</title>
      <link>https://news.example/2024/04/feeds</link>
      <guid>https://news.example/2024/04/feeds</guid>
      <pubDate>Mon, 29 Apr 2024 07:15:00 GMT</pubDate>
    </item>
    <item>
      <title>An older story the first-sighting limit holds back</title>
      <link>https://news.example/2024/04/old</link>
      <guid>https://news.example/2024/04/old</guid>
      <pubDate>Sun, 28 Apr 2024 12:00:00 GMT</pubDate>
    </item>
  </channel>
</rss>
`;

export const BLOG_ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example/">
  <title>Courier Demo Blog</title>
  <id>urn:uuid:6c1b4a52-demo-blog</id>
  <updated>2024-05-02T10:00:00Z</updated>
  <entry>
    <title>Posting &lt;HTML&gt; safely to Telegram</title>
    <id>urn:uuid:6c1b4a52-post-2</id>
    <link href="posts/escaping"/>
    <published>2024-05-02T10:00:00Z</published>
    <updated>2024-05-02T10:00:00Z</updated>
  </entry>
  <entry>
    <title>Hello, world</title>
    <id>urn:uuid:6c1b4a52-post-1</id>
    <link href="posts/hello"/>
    <published>2024-04-20T08:00:00Z</published>
    <updated>2024-04-20T08:00:00Z</updated>
  </entry>
</feed>
`;

/** A second source for the news feed: one story overlaps, one is only here. */
export const NEWS_MIRROR_RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title>Courier Demo News (mirror)</title>
    <link>https://mirror.example/</link>
    <description>Merged with the main news feed</description>${SHARED_STORY}
    <item>
      <title>Only on the mirror: merged feeds in one channel</title>
      <link>https://mirror.example/2024/05/merge</link>
      <guid>https://mirror.example/2024/05/merge</guid>
      <pubDate>Thu, 02 May 2024 06:45:00 GMT</pubDate>
    </item>
  </channel>
</rss>
`;

/** The story the demo's news feed gains at `minute` (minutes since the epoch, UTC). */
export function liveStory(minute: number): string {
  const at = new Date(minute * 60_000);
  const hhmm = at.toISOString().slice(11, 16);
  return `
    <item>
      <title>Live from the demo press: the ${hhmm} UTC story</title>
      <link>https://news.example/live/${minute}</link>
      <guid>https://news.example/live/${minute}</guid>
      <pubDate>${at.toUTCString()}</pubDate>
    </item>`;
}
