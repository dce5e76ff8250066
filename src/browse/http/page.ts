/**
 * The web page at `/`: one HTML string with its script and style inline, and the response
 * that serves it. The Content-Security-Policy allows exactly that script and that style by
 * their sha256 hashes, so an injected script or style (if data ever reached the DOM as HTML)
 * would not run, and Trusted Types make HTML sinks throw in the first place.
 */
import { PAGE_SCRIPT } from "./page/script.ts";
import { PAGE_STYLE } from "./page/style.ts";

// Web Crypto, not node:crypto: Node's crypto layer (and the stream, process and buffer modules
// it loads) cost the server process 9 MB of RSS and 25 ms of start-up for two hashes.
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `'sha256-${new Uint8Array(digest).toBase64()}'`;
}

// A closing tag inside either would end the element early and break its hash.
if (/<\/script/i.test(PAGE_SCRIPT) || /<\/style/i.test(PAGE_STYLE)) {
  throw new Error("the page's script or style contains its own closing tag");
}

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>courier browse</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<nav>
  <label>Token <input id="token" type="password" size="12" autocomplete="off"></label>
  <p id="auth-hint" role="alert" hidden></p>
  <h3>Tables</h3>
  <div id="tables"></div>
  <h3>History</h3>
  <div id="history"></div>
</nav>
<main>
  <div id="info"></div>
  <textarea id="query" spellcheck="false">SELECT name FROM sqlite_schema</textarea>
  <div id="query-controls" hidden></div>
  <div>
    <button id="run">Run (Ctrl+Enter)</button>
    <button id="explain">Explain</button>
    <button id="csv">Download CSV</button>
    <span id="status" role="status"></span>
  </div>
  <div id="pager" hidden>
    <button id="prev">‹ Previous</button>
    <span id="range"></span>
    <button id="next">Next ›</button>
  </div>
  <div id="result"></div>
</main>
<dialog id="viewer">
  <header><span id="viewer-title"></span><button id="viewer-close">Close</button></header>
  <pre id="viewer-text"></pre>
</dialog>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;

/** Computed once: the hashes cover the exact text served in every response. */
export const PAGE_CSP = [
  "default-src 'none'",
  `script-src ${await sha256(PAGE_SCRIPT)}`,
  `style-src ${await sha256(PAGE_STYLE)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

export function pageResponse(): Response {
  return new Response(PAGE_HTML, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": PAGE_CSP,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
      "X-Frame-Options": "DENY",
      "Cross-Origin-Opener-Policy": "same-origin",
    },
  });
}
