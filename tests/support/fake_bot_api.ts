/**
 * A local fake of the Telegram Bot API, faithful to the wire format: `POST /bot<token>/<method>`
 * with a JSON or form body, answers `{ok: true, result}` or
 * `{ok: false, error_code, description, parameters?}`. It parses Telegram HTML as strictly as
 * Telegram does (unknown tags, bare `<`/`&` and unbalanced tags are a 400), enforces the rate
 * limits by arrival time with 429 + retry_after, records every accepted message per chat, and
 * injects faults on demand.
 */

export interface Limit {
  count: number;
  windowMs: number;
}

export interface FakeLimits {
  perChat: Limit;
  global: Limit;
}

/** Telegram's limits: 20 a minute per chat, 30 a second overall. */
export const REAL_LIMITS: FakeLimits = {
  perChat: { count: 20, windowMs: 60_000 },
  global: { count: 30, windowMs: 1_000 },
};

export type FaultKind =
  | "500"
  | "timeout"
  | "chat_not_found"
  | "forbidden"
  | "unauthorized"
  | "migrate"
  | "429"
  | "refuse";

export interface Fault {
  kind: FaultKind;
  /** Only requests for this chat (default any chat). */
  chat?: string;
  /** How many requests it hits (default 1; Infinity for a lasting condition). */
  times?: number;
  /** For "migrate": the new chat id. */
  migrateTo?: string;
  /** For "429": the retry_after to send (seconds, default 1). */
  retryAfter?: number;
  /**
   * For "refuse": a 400 about the message's content, with this description (default
   * Telegram's "Bad Request: can't parse entities: Unsupported start tag ..." ).
   */
  description?: string;
  /** Only messages whose text contains this. */
  textContains?: string;
  /** Only messages sent with `parse_mode: HTML` (a plain-text retry gets through). */
  htmlOnly?: boolean;
}

/** Descriptions Telegram gives when it refuses a message for its content. */
export const CONTENT_REFUSALS = {
  entities: `Bad Request: can't parse entities: Unsupported start tag "foo" at byte offset 12`,
  tooLong: "Bad Request: message is too long",
  urlHostEmpty: "Bad Request: URL host is empty",
  wrongUrl: "Bad Request: wrong HTTP URL specified",
};

export interface FakeMessage {
  chatId: string;
  messageId: number;
  /** The HTML as sent. */
  html: string;
  /** The text after entity parsing, as a reader sees it. */
  text: string;
  /** Bold runs, in order. */
  bold: string[];
  /** Links, in order. */
  links: { href: string; text: string }[];
  previews: boolean;
  /** `link_preview_options.url`: the page previewed instead of the text's first link. */
  previewUrl: string | null;
  /** Sent with `disable_notification`. */
  silent: boolean;
  /** The forum topic it was posted in (`message_thread_id`); null for the chat itself. */
  threadId: number | null;
  /** Arrival time on the fake's clock (ms). */
  at: number;
}

export interface FakeBotApiOptions {
  /** The bot token accepted (default "123456:TEST-token_abc"). */
  token?: string;
  /** Rate limits to enforce, or null to accept any rate (default the real ones). */
  limits?: FakeLimits | null;
  now?: () => number;
  /**
   * Called after a message is accepted and recorded, before the answer is sent; the
   * message is "posted" even if the client never hears back (as when it is killed).
   */
  onMessage?: (message: FakeMessage, total: number) => void | Promise<void>;
  /**
   * Called when a sendMessage request arrives (`request` counts them from 1), before anything
   * else; resolving to false drops it unposted (answered 500), as if the sender died first.
   */
  beforeMessage?: (request: number) => boolean | void | Promise<boolean | void>;
}

export interface FakeBotApi {
  /** Base URL to give courier (`--messenger-api`). */
  url: string;
  token: string;
  /** Accepted messages, in arrival order, of one chat or of all. */
  messages(chat?: string): FakeMessage[];
  /** Requests answered 429. */
  throttled: number;
  /** sendMessage requests received, whatever the answer. */
  requests: number;
  inject(fault: Fault): void;
  /** Marks a chat as unknown (400 chat not found) for good. */
  addMissingChat(chat: string): void;
  /**
   * Makes `chat` a forum with a topic `id`: a message with `message_thread_id` is accepted only
   * for a topic added so (400 "message thread not found" otherwise, as Telegram answers).
   */
  addTopic(chat: string, id: number): void;
  close(): Promise<void>;
}

class BadEntities extends Error {}

const ALLOWED_TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "a",
  "code",
  "pre",
  "tg-spoiler",
  "span",
  "blockquote",
]);
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

function decodeEntities(raw: string, where: string): string {
  return raw.replace(/&([^;&<>\s]*);?/g, (match, name: string) => {
    if (!match.endsWith(";")) throw new BadEntities(`bare "&" in ${where}`);
    if (name in NAMED) return NAMED[name];
    const num = /^#(x[0-9a-f]+|\d+)$/i.exec(name);
    if (num) {
      const code = num[1][0].toLowerCase() === "x"
        ? parseInt(num[1].slice(1), 16)
        : parseInt(num[1], 10);
      return String.fromCodePoint(code);
    }
    throw new BadEntities(`unsupported entity "&${name};" in ${where}`);
  });
}

/** Parses Telegram HTML; throws BadEntities like Telegram's "can't parse entities". */
export function parseTelegramHtml(html: string) {
  let text = "";
  const bold: string[] = [];
  const links: { href: string; text: string }[] = [];
  const stack: { tag: string; start: number; href?: string }[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    const chunk = lt === -1 ? html.slice(i) : html.slice(i, lt);
    if (chunk.includes(">")) throw new BadEntities(`unescaped ">" at offset ${i}`);
    text += decodeEntities(chunk, `text at offset ${i}`);
    if (lt === -1) break;
    const gt = html.indexOf(">", lt);
    if (gt === -1) throw new BadEntities(`unclosed tag at offset ${lt}`);
    const tagText = html.slice(lt + 1, gt);
    const close = /^\/([a-z-]+)\s*$/i.exec(tagText);
    const open = /^([a-z-]+)((?:\s+[a-z-]+\s*=\s*"[^"]*")*)\s*$/i.exec(tagText);
    if (close) {
      const top = stack.pop();
      if (!top || top.tag !== close[1].toLowerCase()) {
        throw new BadEntities(`unmatched end tag "${close[1]}" at offset ${lt}`);
      }
      const inner = text.slice(top.start);
      if (top.tag === "b" || top.tag === "strong") bold.push(inner);
      if (top.tag === "a") links.push({ href: top.href ?? "", text: inner });
    } else if (open) {
      const tag = open[1].toLowerCase();
      if (!ALLOWED_TAGS.has(tag)) throw new BadEntities(`unsupported start tag "${tag}"`);
      let href: string | undefined;
      for (const m of open[2].matchAll(/([a-z-]+)\s*=\s*"([^"]*)"/gi)) {
        if (m[1].toLowerCase() === "href") href = decodeEntities(m[2], "href");
      }
      if (tag === "a" && href === undefined) throw new BadEntities(`<a> without href`);
      stack.push({ tag, start: text.length, href });
    } else {
      throw new BadEntities(`unsupported tag "<${tagText.slice(0, 20)}>" at offset ${lt}`);
    }
    i = gt + 1;
  }
  if (stack.length > 0) throw new BadEntities(`unclosed "${stack[stack.length - 1].tag}"`);
  return { text, bold, links };
}

function answer(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function failure(code: number, description: string, parameters?: Record<string, unknown>) {
  return answer(
    { ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) },
    code,
  );
}

/** Starts the fake on 127.0.0.1, a free port. */
export function startFakeBotApi(options: FakeBotApiOptions = {}): Promise<FakeBotApi> {
  const token = options.token ?? "123456:TEST-token_abc";
  const limits = options.limits === undefined ? REAL_LIMITS : options.limits;
  const now = options.now ?? (() => performance.now());
  const all: FakeMessage[] = [];
  const perChat = new Map<string, FakeMessage[]>();
  const faults: (Fault & { left: number })[] = [];
  const missing = new Set<string>();
  const topics = new Set<string>();
  const held = new Set<() => void>();
  const globalLog: number[] = [];
  const state = { throttled: 0, requests: 0 };

  function takeFault(
    chat: string,
    params: Record<string, unknown>,
  ): (Fault & { left: number }) | null {
    const text = typeof params.text === "string" ? params.text : "";
    const index = faults.findIndex((f) =>
      f.left > 0 && (f.chat === undefined || f.chat === chat) &&
      (f.textContains === undefined || text.includes(f.textContains)) &&
      (!f.htmlOnly || params.parse_mode === "HTML")
    );
    if (index === -1) return null;
    const fault = faults[index];
    fault.left--;
    if (fault.left <= 0) faults.splice(index, 1);
    return fault;
  }

  /** Seconds to wait when a send now would break a limit, else 0. */
  function overLimit(chat: string, t: number): number {
    if (!limits) return 0;
    let wait = 0;
    const check = (log: number[], limit: Limit) => {
      const inWindow = log.filter((x) => x > t - limit.windowMs);
      if (inWindow.length >= limit.count) {
        const oldest = inWindow[inWindow.length - limit.count];
        wait = Math.max(wait, Math.ceil((oldest + limit.windowMs - t) / 1000));
      }
    };
    check(globalLog, limits.global);
    check((perChat.get(chat) ?? []).map((m) => m.at), limits.perChat);
    return wait;
  }

  async function readParams(request: Request): Promise<Record<string, unknown>> {
    const url = new URL(request.url);
    const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
    const type = request.headers.get("content-type") ?? "";
    if (request.method === "POST") {
      if (type.includes("application/json")) {
        Object.assign(params, await request.json());
      } else if (
        type.includes("application/x-www-form-urlencoded") || type.includes("multipart/form-data")
      ) {
        for (const [k, v] of await request.formData()) params[k] = String(v);
      }
    }
    return params;
  }

  async function sendMessage(request: Request): Promise<Response> {
    state.requests++;
    if ((await options.beforeMessage?.(state.requests)) === false) {
      return failure(500, "Internal Server Error");
    }
    let params: Record<string, unknown>;
    try {
      params = await readParams(request);
    } catch {
      return failure(400, "Bad Request: can't parse request JSON object");
    }
    const chat = params.chat_id === undefined ? "" : String(params.chat_id);
    if (chat === "") return failure(400, "Bad Request: chat_id is empty");
    const fault = takeFault(chat, params);
    if (fault) {
      switch (fault.kind) {
        case "500":
          return failure(500, "Internal Server Error");
        case "timeout":
          // Never answer (the client must give up); let go when the fake closes.
          await new Promise<void>((resolve) => held.add(resolve));
          return failure(504, "Gateway Timeout");
        case "chat_not_found":
          return failure(400, "Bad Request: chat not found");
        case "forbidden":
          return failure(403, "Forbidden: bot is not a member of the channel chat");
        case "unauthorized":
          return failure(401, "Unauthorized");
        case "migrate":
          return failure(400, "Bad Request: group chat was upgraded to a supergroup chat", {
            migrate_to_chat_id: Number(fault.migrateTo ?? "-1001"),
          });
        case "429":
          state.throttled++;
          return failure(429, `Too Many Requests: retry after ${fault.retryAfter ?? 1}`, {
            retry_after: fault.retryAfter ?? 1,
          });
        case "refuse":
          return failure(400, fault.description ?? CONTENT_REFUSALS.entities);
      }
    }
    if (!/^(@[A-Za-z][A-Za-z0-9_]{3,31}|-?\d{1,20})$/.test(chat) || missing.has(chat)) {
      return failure(400, "Bad Request: chat not found");
    }
    let threadId: number | null = null;
    if (params.message_thread_id !== undefined) {
      threadId = Number(params.message_thread_id);
      if (!Number.isInteger(threadId) || !topics.has(`${chat} ${threadId}`)) {
        return failure(400, "Bad Request: message thread not found");
      }
    }
    const html = typeof params.text === "string" ? params.text : "";
    if (params.parse_mode !== undefined && params.parse_mode !== "HTML") {
      return failure(400, `Bad Request: unsupported parse_mode in this fake`);
    }
    let parsed;
    try {
      parsed = params.parse_mode === "HTML"
        ? parseTelegramHtml(html)
        : { text: html, bold: [], links: [] };
    } catch (error) {
      return failure(400, `Bad Request: can't parse entities: ${(error as Error).message}`);
    }
    if (parsed.text.trim() === "") return failure(400, "Bad Request: message text is empty");
    if (parsed.text.length > 4096) return failure(400, "Bad Request: message is too long");
    const t = now();
    const wait = overLimit(chat, t);
    if (wait > 0) {
      state.throttled++;
      return failure(429, `Too Many Requests: retry after ${wait}`, { retry_after: wait });
    }
    const previewOptions = params.link_preview_options as
      | { is_disabled?: boolean; url?: string }
      | undefined;
    const list = perChat.get(chat) ?? [];
    perChat.set(chat, list);
    const message: FakeMessage = {
      chatId: chat,
      messageId: list.length + 1,
      html,
      text: parsed.text,
      bold: parsed.bold,
      links: parsed.links,
      previews: !(previewOptions?.is_disabled === true ||
        params.disable_web_page_preview === true || params.disable_web_page_preview === "true"),
      previewUrl: typeof previewOptions?.url === "string" ? previewOptions.url : null,
      silent: params.disable_notification === true || params.disable_notification === "true",
      threadId,
      at: t,
    };
    list.push(message);
    all.push(message);
    globalLog.push(t);
    if (globalLog.length > 1000) globalLog.splice(0, globalLog.length - 1000);
    await options.onMessage?.(message, all.length);
    return answer({
      ok: true,
      result: {
        message_id: message.messageId,
        date: Math.floor(Date.now() / 1000),
        chat: chat.startsWith("@")
          ? {
            id: -1000000000000 - (hash(chat) % 1000000),
            type: "channel",
            username: chat.slice(1),
          }
          : { id: Number(chat), type: "channel" },
        text: parsed.text,
      },
    });
  }

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(new URL(request.url).pathname);
      if (!match) return failure(404, "Not Found");
      if (match[1] !== token) return failure(401, "Unauthorized");
      const method = match[2].toLowerCase();
      if (method === "getme") {
        return answer({ ok: true, result: { id: Number(token.split(":")[0]), is_bot: true } });
      }
      if (method !== "sendmessage") return failure(404, "Not Found: method not found");
      return await sendMessage(request);
    },
  );

  return Promise.resolve({
    url: `http://127.0.0.1:${server.addr.port}`,
    token,
    messages: (chat?: string) => chat === undefined ? [...all] : [...(perChat.get(chat) ?? [])],
    get throttled() {
      return state.throttled;
    },
    get requests() {
      return state.requests;
    },
    inject(fault: Fault) {
      faults.push({ ...fault, left: fault.times ?? 1 });
    },
    addMissingChat(chat: string) {
      missing.add(chat);
    },
    addTopic(chat: string, id: number) {
      topics.add(`${chat} ${id}`);
    },
    async close() {
      for (const release of [...held]) release();
      await server.shutdown();
    },
  });
}

function hash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.codePointAt(0)!) >>> 0;
  return h;
}
