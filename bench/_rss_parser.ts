/**
 * rss-parser as a whole process, the peer of `courier preview FILE --json` in bench/parse.ts:
 * reads FILE, parses it and prints the entries as JSON (id, link, title, date).
 */
import Parser from "npm:rss-parser@^3.13.0";

const feed = await new Parser().parseString(await Deno.readTextFile(Deno.args[0]));
console.log(JSON.stringify(
  {
    title: feed.title ?? null,
    entries: feed.items.map((item) => ({
      id: item.guid ?? item.id ?? null,
      link: item.link ?? null,
      title: item.title ?? null,
      published: item.isoDate ?? null,
    })),
  },
  null,
  2,
));
