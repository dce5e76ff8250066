/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven over the DevTools protocol, for tests
 * of the web page as a person sees it. Only what the tests need: open a page at a fixed
 * viewport, evaluate JavaScript, wait for a condition the page reaches by itself, take a
 * screenshot, receive downloads, and see every Content-Security-Policy violation.
 */

import { stopChild, withinChild } from "./child.ts";

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
  /** A PNG of the viewport. */
  screenshot(path: string): Promise<void>;
  /** CSP violations the page reported so far, as "directive blocked-uri" strings. */
  cspViolations(): Promise<string[]>;
}

export interface Download {
  /** Where the file landed; its name is Chromium's id for the download. */
  path: string;
  suggestedFilename: string;
}

export interface Browser {
  /** Opens `url` in a new tab with a viewport of the given CSS size (default 1024×700). */
  open(url: string, viewport?: { width: number; height: number }): Promise<Page>;
  /**
   * Resolves with the next download that starts after this call once it has completed, so
   * call it before the click that starts it; rejects if none completes within `timeoutMs`.
   */
  nextDownload(timeoutMs?: number): Promise<Download>;
  close(): Promise<void>;
}

/** Runs in every page before its own scripts (DevTools scripts are exempt from its CSP). */
const RECORD_CSP_VIOLATIONS = `window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.effectiveDirective + " " + e.blockedURI);
});`;

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
  const wsUrl = await withinChild(child, "Chromium listening", devtoolsUrl(child.stderr));
  const socket = new WebSocket(wsUrl);
  await withinChild(
    child,
    "Chromium's DevTools connection",
    new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error("cannot connect to Chromium's DevTools"));
    }),
  );
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const listeners = new Set<(method: string, params: Record<string, unknown>) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id === undefined && message.method) {
      for (const listener of listeners) listener(message.method, message.params ?? {});
      return;
    }
    const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  };
  const send = (method: string, params: unknown = {}, sessionId?: string) => {
    const id = nextId++;
    socket.send(JSON.stringify({ id, method, params, sessionId }));
    return withinChild(
      child,
      `Chromium answering ${method}`,
      new Promise<Record<string, unknown>>((resolve, reject) => {
        pending.set(id, { resolve, reject });
      }),
    );
  };

  const downloads = await Deno.makeTempDir({ prefix: "chromium_downloads_" });
  await send("Browser.setDownloadBehavior", {
    behavior: "allowAndName",
    downloadPath: downloads,
    eventsEnabled: true,
  });

  return {
    async open(url, viewport = { width: 1024, height: 700 }) {
      const { targetId } = await send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true }) as {
        sessionId: string;
      };
      await send("Page.enable", {}, sessionId);
      await send("Emulation.setDeviceMetricsOverride", {
        ...viewport,
        deviceScaleFactor: 1,
        mobile: false,
      }, sessionId);
      await send("Page.addScriptToEvaluateOnNewDocument", {
        source: RECORD_CSP_VIOLATIONS,
      }, sessionId);
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
        cspViolations() {
          return page.evaluate<string[]>("window.__cspViolations");
        },
      };
      await page.waitFor(
        `location.href.startsWith(${JSON.stringify(url)}) && document.readyState === "complete"`,
      );
      return page;
    },
    nextDownload(timeoutMs = 10_000) {
      return new Promise<Download>((resolve, reject) => {
        let guid: string | undefined;
        let suggestedFilename = "";
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`no download completed within ${timeoutMs} ms`));
        }, timeoutMs);
        const listener = (method: string, params: Record<string, unknown>) => {
          if (method === "Browser.downloadWillBegin" && guid === undefined) {
            guid = String(params.guid);
            suggestedFilename = String(params.suggestedFilename);
          } else if (method === "Browser.downloadProgress" && params.guid === guid) {
            if (params.state === "completed") {
              clearTimeout(timer);
              listeners.delete(listener);
              resolve({ path: `${downloads}/${guid}`, suggestedFilename });
            } else if (params.state === "canceled") {
              clearTimeout(timer);
              listeners.delete(listener);
              reject(new Error(`download of ${suggestedFilename} canceled`));
            }
          }
        };
        listeners.add(listener);
      });
    },
    async close() {
      await send("Browser.close").catch(() => {});
      socket.close();
      await stopChild(child);
      await Deno.remove(profile, { recursive: true }).catch(() => {});
      await Deno.remove(downloads, { recursive: true }).catch(() => {});
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

const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * Decodes a PNG file as far as a test needs to trust it: signature, every chunk's CRC, and the
 * image data inflated to exactly the size its header promises. Returns the pixel size.
 */
export async function readPng(path: string): Promise<{ width: number; height: number }> {
  const bytes = await Deno.readFile(path);
  if (!PNG_SIGNATURE.every((b, i) => bytes[i] === b)) throw new Error(`${path}: not a PNG`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let width = 0, height = 0, channels = 0, sawEnd = false;
  const idat: Uint8Array[] = [];
  for (let at = 8; at < bytes.length && !sawEnd;) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== view.getUint32(at + 8 + length)) {
      throw new Error(`${path}: bad CRC in ${type}`);
    }
    if (type === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      if (data[8] !== 8) throw new Error(`${path}: bit depth ${data[8]} not handled`);
      channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[data[9]] ?? 0;
      if (!channels) throw new Error(`${path}: colour type ${data[9]} not handled`);
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") sawEnd = true;
    at += 12 + length;
  }
  if (!sawEnd || !width) throw new Error(`${path}: truncated PNG`);
  const inflated = await new Response(
    new Blob(idat as BlobPart[]).stream().pipeThrough(new DecompressionStream("deflate")),
  ).arrayBuffer();
  // Each row is one filter byte and its pixels.
  if (inflated.byteLength !== height * (1 + width * channels)) {
    throw new Error(`${path}: image data does not match ${width}×${height}`);
  }
  return { width, height };
}
