import assert from "node:assert/strict";
import { firstSighting } from "../../src/forward/first_sighting.ts";
import { makeEntry } from "../support/forward_stubs.ts";

const entries = ["a", "b", "c", "d", "e"].map((id, i) => makeEntry(id, i));
const ids = (list: { id: string }[]) => list.map((e) => e.id);

Deno.test("limit -1 sends everything, oldest first", () => {
  const { send, skip } = firstSighting(entries, -1);
  assert.deepEqual(ids(send), ["a", "b", "c", "d", "e"]);
  assert.deepEqual(skip, []);
});

Deno.test("limit N sends the newest N, oldest first, and skips the rest", () => {
  const { send, skip } = firstSighting(entries, 2);
  assert.deepEqual(ids(send), ["d", "e"]);
  assert.deepEqual(ids(skip), ["a", "b", "c"]);
});

Deno.test("limit 0 sends nothing; a limit above the count sends all", () => {
  assert.deepEqual(ids(firstSighting(entries, 0).skip), ["a", "b", "c", "d", "e"]);
  assert.deepEqual(firstSighting(entries, 0).send, []);
  assert.deepEqual(ids(firstSighting(entries, 9).send), ["a", "b", "c", "d", "e"]);
});
