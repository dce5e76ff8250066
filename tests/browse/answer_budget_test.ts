import assert from "node:assert/strict";
import { AnswerBudget, SMALL_ANSWER_BYTES } from "../../src/browse/http/answer_budget.ts";

Deno.test("answer budget: a large answer's pieces are copies, so a piece the HTTP server keeps does not keep the answer", async () => {
  const budget = new AnswerBudget(64 * 1024 * 1024, 30_000);
  const answer = new Uint8Array(8 * 1024 * 1024).map((_, i) => i % 251);
  const body = budget.body(answer);
  assert.ok(body instanceof ReadableStream);
  assert.equal(budget.used, answer.length);
  const reader = body.getReader();
  const { value } = await reader.read();
  assert.ok(value !== undefined);
  // Before, a view of the answer: a client that stopped reading left the HTTP server holding
  // that piece, and with it all 8 MiB, after the stall limit had given them back to the budget.
  assert.ok(value.buffer !== answer.buffer, "a piece is a view of the whole answer");
  assert.ok(value.buffer.byteLength <= SMALL_ANSWER_BYTES, `${value.buffer.byteLength}`);
  assert.deepEqual(value, answer.subarray(0, value.length));
  await reader.cancel();
  assert.equal(budget.used, 0);
});
