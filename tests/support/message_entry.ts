import type { Entry } from "../../src/model/entry.ts";

/** An entry "Hello" linking to https://example.org/a, with `partial` over it: for messages. */
export function messageEntry(partial: Partial<Entry>): Entry {
  return {
    id: "x",
    link: "https://example.org/a",
    title: "Hello",
    published: null,
    updated: null,
    summary: "",
    ...partial,
  };
}
