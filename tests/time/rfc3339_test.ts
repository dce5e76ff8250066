import assert from "node:assert/strict";
import { formatRfc3339 } from "../../src/time/rfc3339.ts";

Deno.test("formatRfc3339: UTC, fractional seconds only when there are some", () => {
  assert.equal(formatRfc3339(new Date("2024-05-01T12:00:00Z")), "2024-05-01T12:00:00Z");
  assert.equal(formatRfc3339(new Date("2024-01-31T10:00:00.050Z")), "2024-01-31T10:00:00.050Z");
});

Deno.test("formatRfc3339: whole seconds drop the fraction, before 1970 too", () => {
  const whole = { wholeSeconds: true };
  assert.equal(formatRfc3339(new Date("2024-05-01T12:00:00.789Z"), whole), "2024-05-01T12:00:00Z");
  assert.equal(formatRfc3339(new Date("1969-12-31T23:59:59.500Z"), whole), "1969-12-31T23:59:59Z");
});

Deno.test("formatRfc3339: at an offset, the local wall time and the offset", () => {
  const at = new Date("2024-05-01T12:00:00Z");
  assert.equal(formatRfc3339(at, { offsetMinutes: 120 }), "2024-05-01T14:00:00+02:00");
  assert.equal(formatRfc3339(at, { offsetMinutes: -570 }), "2024-05-01T02:30:00-09:30");
});
