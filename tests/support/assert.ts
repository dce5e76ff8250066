/** The assertions tests use: node's strict assert under the names Deno users know. */
import assertModule from "node:assert/strict";

// node's typings want either no message or a string; these pass on only what was given.
export function assert(value: unknown, message?: string): asserts value {
  if (message === undefined) assertModule.ok(value);
  else assertModule.ok(value, message);
}

export function assertEquals<T>(actual: unknown, expected: T, message?: string): void {
  if (message === undefined) assertModule.deepStrictEqual(actual, expected);
  else assertModule.deepStrictEqual(actual, expected, message);
}

export function assertNotEquals(actual: unknown, expected: unknown, message?: string): void {
  if (message === undefined) assertModule.notDeepStrictEqual(actual, expected);
  else assertModule.notDeepStrictEqual(actual, expected, message);
}

export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  if (message === undefined) assertModule.match(actual, pattern);
  else assertModule.match(actual, pattern, message);
}

export async function assertRejects(
  fn: () => Promise<unknown>,
  check?: RegExp | ((error: unknown) => boolean),
): Promise<unknown> {
  let caught: unknown;
  try {
    await fn();
  } catch (error) {
    caught = error;
  }
  assertModule.ok(caught !== undefined, "expected a rejection");
  if (check instanceof RegExp) assertModule.match(String((caught as Error)?.message), check);
  else if (check) assertModule.ok(check(caught), `unexpected error: ${caught}`);
  return caught;
}

export function assertThrows(fn: () => unknown, pattern?: RegExp): unknown {
  try {
    fn();
  } catch (error) {
    if (pattern) assertModule.match(String((error as Error)?.message), pattern);
    return error;
  }
  throw new assertModule.AssertionError({ message: "expected a throw" });
}
