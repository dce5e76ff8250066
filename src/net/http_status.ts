import { STATUS_CODES } from "node:http";

/** Longest reason phrase of a status code we do not know that is shown as the server sent it. */
const MAX_REASON = 60;

/**
 * "HTTP 502 Bad Gateway": the status and its standard text, once. A server's own reason phrase
 * is free text (HTML error pages have put markup there), so it is shown only for codes without
 * a standard text, on one line, without markup and cut short. Never reads the body.
 */
export function describeStatus(status: number, statusText = ""): string {
  const reason = STATUS_CODES[status] ?? cleanReason(statusText);
  return reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`;
}

function cleanReason(text: string): string {
  const plain = text.replace(/<[^>]*>?/g, " ").replace(/\s+/g, " ").trim();
  return plain.length > MAX_REASON ? `${plain.slice(0, MAX_REASON - 1)}…` : plain;
}
