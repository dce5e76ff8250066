/** A request the API refuses: status and a message for `{"error"}`. */
export class HttpError extends Error {
  constructor(readonly status: 400 | 401 | 403 | 404 | 413, message: string) {
    super(message);
  }
}

/**
 * The API's one error shape, `{"error": message}`. Security headers come from the middleware
 * that wraps every answer, so they are not repeated here.
 */
export function errorResponse(
  status: number,
  message: string,
  extra: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ error: message }), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...extra },
  });
}
