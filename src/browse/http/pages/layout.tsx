/**
 * The frame of every page and the response that serves it. The Content-Security-Policy allows
 * exactly the one inline script and style by their sha256 hashes, forms only to this origin,
 * nothing from elsewhere; Trusted Types make HTML sinks throw. Text reaches the page through
 * JSX, which escapes it.
 */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { SCRIPT } from "./client.ts";
import { STYLE } from "./style.ts";
import { Visible } from "./cells.tsx";
import { BASE, tablePath } from "./urls.ts";

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `'sha256-${new Uint8Array(digest).toBase64()}'`;
}

// A closing tag inside either would end the element early and break its hash.
if (/<\/script/i.test(SCRIPT) || /<\/style/i.test(STYLE)) {
  throw new Error("the page's script or style contains its own closing tag");
}

export const PAGES_CSP = [
  "default-src 'none'",
  `script-src ${await sha256(SCRIPT)}`,
  `style-src ${await sha256(STYLE)}`,
  "base-uri 'none'",
  "object-src 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

export interface Frame {
  label: string;
  write: boolean;
  tables: { name: string; kind: string }[];
  current?: string;
}

export function Layout(
  { title, frame, children }: { title: string; frame: Frame; children?: Child },
) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{title} · courier browse</title>
        <style>{raw(STYLE)}</style>
      </head>
      <body>
        <header class="top">
          <a class="home" href="/">courier browse</a>
          <span>
            <Visible text={frame.label} />
          </span>
          {frame.write
            ? (
              <span class="badge write" title="statements sent with Run and write can change it">
                read-write
              </span>
            )
            : <span class="badge">read-only</span>}
          <a href={`${BASE}/query`}>Query</a>
        </header>
        <div class="layout">
          <nav class="tables" aria-label="Tables">
            <h2>Tables and views</h2>
            <ul>
              {frame.tables.map((t) => (
                <li>
                  <a
                    href={tablePath(t.name)}
                    aria-current={t.name === frame.current ? "page" : undefined}
                  >
                    <Visible text={t.name} />
                    {t.kind !== "table" ? <span class="kind">{t.kind}</span> : ""}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <main>{children}</main>
        </div>
        <script>{raw(SCRIPT)}</script>
      </body>
    </html>
  );
}

/** A page; the other security headers are the middleware's (securityHeaders), as on every answer. */
export function htmlResponse(body: Child, status = 200): Response {
  return new Response("<!doctype html>\n" + String(body), {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": PAGES_CSP },
  });
}
