/** A request refused, or a read that failed: its status and a message for `{"error"}` or the page. */
export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/**
 * The most characters of a message the server puts in an error it builds: a message may quote
 * the request (a parameter's name), and a request may be 1 MiB. The answer stays small, so it
 * never needs the answer budget (answer_budget.ts).
 */
export const MAX_ERROR_CHARS = 1000;

/**
 * The API's one error shape, `{"error": message}`. Security headers come from the middleware
 * that wraps every answer, so they are not repeated here.
 */
export function errorResponse(
  status: number,
  message: string,
  extra: Record<string, string> = {},
): Response {
  const shown = message.length > MAX_ERROR_CHARS
    ? `${message.slice(0, MAX_ERROR_CHARS)}… (cut)`
    : message;
  return new Response(JSON.stringify({ error: shown }), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...extra },
  });
}
