/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven over the DevTools protocol, for tests
 * of the web page as a person sees it. Only what the tests need: open a page, evaluate
 * JavaScript, wait for a condition the page reaches by itself, take a screenshot.
 */

const CHROMIUM = Deno.env.get("CHROMIUM_BIN") ?? "/usr/bin/chromium";

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
}

export interface Page {
  /** Evaluates an expression in the page; promises are awaited. Returns its JSON value. */
  evaluate<T = unknown>(expression: string): Promise<T>;
  /**
   * Resolves when `predicate` (a JS expression) becomes truthy, watching the DOM for changes;
   * rejects after `timeoutMs` with the page's text, so a failure says what was on screen.
   */
  waitFor(predicate: string, timeoutMs?: number): Promise<void>;
  screenshot(path: string): Promise<void>;
}

export interface Browser {
  open(url: string): Promise<Page>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const profile = await Deno.makeTempDir({ prefix: "chromium_" });
  const child = new Deno.Command(CHROMIUM, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      `--user-data-dir=${profile}`,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "about:blank",
    ],
    stdout: "null",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  const wsUrl = await devtoolsUrl(child.stderr);
  const socket = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error("cannot connect to Chromium's DevTools"));
  });
  let nextId = 1;
  const pending = new Map<number, Pending>();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  };
  const send = (method: string, params: unknown = {}, sessionId?: string) => {
    const id = nextId++;
    socket.send(JSON.stringify({ id, method, params, sessionId }));
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      pending.set(id, { resolve, reject });
    });
  };

  return {
    async open(url) {
      const { targetId } = await send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true }) as {
        sessionId: string;
      };
      await send("Page.enable", {}, sessionId);
      await send("Page.navigate", { url }, sessionId);
      const page: Page = {
        async evaluate<T>(expression: string) {
          const result = await send("Runtime.evaluate", {
            expression,
            awaitPromise: true,
            returnByValue: true,
          }, sessionId) as { result: { value: T }; exceptionDetails?: { text: string } };
          if (result.exceptionDetails) {
            throw new Error(`page threw: ${JSON.stringify(result.exceptionDetails)}`);
          }
          return result.result.value;
        },
        async waitFor(predicate, timeoutMs = 10_000) {
          const ok = await page.evaluate<boolean>(`new Promise((resolve) => {
            const test = () => { try { return Boolean(${predicate}); } catch { return false; } };
            if (test()) return resolve(true);
            const observer = new MutationObserver(() => {
              if (test()) { observer.disconnect(); resolve(true); }
            });
            const start = () => observer.observe(document, {
              subtree: true, childList: true, characterData: true, attributes: true });
            if (document.documentElement) start();
            else document.addEventListener("DOMContentLoaded", () => { start(); });
            setTimeout(() => { observer.disconnect(); resolve(test()); }, ${timeoutMs});
          })`);
          if (!ok) {
            const text = await page.evaluate<string>("document.body?.innerText ?? ''");
            throw new Error(`page never reached ${predicate}; it shows:\n${text}`);
          }
        },
        async screenshot(path) {
          const { data } = await send("Page.captureScreenshot", { format: "png" }, sessionId) as {
            data: string;
          };
          await Deno.writeFile(path, Uint8Array.from(atob(data), (c) => c.charCodeAt(0)));
        },
      };
      await page.waitFor(
        `location.href.startsWith(${JSON.stringify(url)}) && document.readyState === "complete"`,
      );
      return page;
    },
    async close() {
      await send("Browser.close").catch(() => {});
      socket.close();
      await child.status;
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

/** Reads Chromium's stderr until it announces its DevTools WebSocket URL. */
async function devtoolsUrl(stderr: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`Chromium exited before listening:\n${seen}`);
    seen += value;
    const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
    if (match) {
      // Keep draining so Chromium never blocks on a full stderr pipe.
      (async () => {
        while (!(await reader.read()).done) { /* discard */ }
      })().catch(() => {});
      return match[1];
    }
  }
}
