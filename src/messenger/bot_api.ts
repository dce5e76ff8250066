import { realClock, sleep } from "../time/clock.ts";
import type { Logger } from "../log/logger.ts";
import { redactUrl, scrub, type Secret } from "../secrets/secret.ts";
import { proxyOf } from "../net/client.ts";
import { causeChain, describeNetworkFailure } from "../net/failure.ts";
import { describeStatus, reasonPhrase } from "../net/http_status.ts";
import { describeProxy, type ProxySpec } from "../net/proxy.ts";
import {
  ChatError,
  isMessageRefusal,
  MessageRefusedError,
  MessengerError,
  MessengerFatalError,
  NotHeldError,
  RateLimitedError,
} from "./errors.ts";
import type { Message } from "./format.ts";
import { Pacer } from "./pacer.ts";
import { Circuit } from "./circuit.ts";

/** Most 429 answers accepted for one message before giving up. */
const MAX_429 = 10;

/** How Deno reports a proxy that refused the user name or password. */
const PROXY_AUTH_FAILURE = /Password auth failure|Proxy Authentication Required|\b407\b/i;

/** Sends messages to chats; the Bot API client, or a dry-run printer. */
export interface Outbox {
  /** Resolves once the messenger accepted the message; rejects with a MessengerError. */
  send(chat: string, message: Message, signal?: AbortSignal, options?: SendOptions): Promise<Sent>;
}

export interface SendOptions {
  /**
   * The longest wait the messenger may impose on the chat (a 429's retry_after, from this
   * message or an earlier one) before giving up with a RateLimitedError; default no bound.
   */
  maxWaitMs?: number;
  /**
   * Fencing: until when (monotonic ms, the client's `now`) this process may send to the chat
   * (its channel lease, src/forward/leases.ts). Asked right before every request, after the
   * wait for a send slot and before each retry; a request is started only with at least
   * `minRequestMs` left, and is cut when the time is up, so none is under way after it.
   */
  until?: () => number;
}

export interface Sent {
  messageId: number;
  /** The chat it went to: differs from the one asked for after a `migrate_to_chat_id`. */
  chat: string;
}

export interface BotApiOptions {
  /** API base URL, e.g. https://api.telegram.org or a local Bot API server. */
  baseUrl: string;
  token: Secret;
  /**
   * Where the token came from and what changes it (src/config/token.ts), said when the
   * messenger refuses it.
   */
  tokenOrigin?: { source: string; fix: string };
  /** HTTP client carrying the messenger proxy; default a direct connection. */
  client?: Deno.HttpClient;
  pacer?: Pacer;
  /** Chats whose messenger was found down (circuit.ts); shared like the pacer. */
  circuit?: Circuit;
  /** Monotonic milliseconds. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Time limit of one request (default 30 s). */
  timeoutMs?: number;
  /** The least time a send's `until` must leave for its request to start (default 1 s). */
  minRequestMs?: number;
  /** Retries after a 5xx or a network error (default 5), waiting backoffMs, 2×, 4×… (≤ 60 s). */
  retries?: number;
  backoffMs?: number;
  logger?: Logger;
  /** Told when the messenger moved a chat, so the new id can be remembered. */
  onMigrate?: (from: string, to: string) => void | Promise<void>;
  /** Told the HTTP status of every answer the API gave (metrics count them by code). */
  onResponse?: (status: number) => void;
}

interface ApiAnswer {
  ok: boolean;
  result?: { message_id?: number };
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number | string };
}

/**
 * The Telegram Bot API `sendMessage`, paced within the rate limits, with retries. The token is
 * part of every request URL, so nothing from fetch reaches a message unscrubbed: errors are
 * rebuilt around a display URL with the token replaced.
 */
export class BotApi implements Outbox {
  readonly #url: string;
  readonly #shownUrl: string;
  readonly #secrets: string[];
  readonly #proxy: ProxySpec | null;
  readonly #pacer: Pacer;
  readonly #circuit: Circuit;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #opts: BotApiOptions;

  constructor(options: BotApiOptions) {
    const base = options.baseUrl.replace(/\/+$/, "");
    const token = options.token.reveal();
    this.#url = `${base}/bot${token}/sendMessage`;
    this.#shownUrl = `${redactUrl(base)}/bot[redacted]/sendMessage`;
    this.#proxy = proxyOf(options.client);
    const proxyPassword = this.#proxy?.password?.reveal();
    this.#secrets = [token, encodeURIComponent(token)];
    if (proxyPassword) this.#secrets.push(proxyPassword, encodeURIComponent(proxyPassword));
    this.#pacer = options.pacer ?? new Pacer();
    this.#circuit = options.circuit ?? new Circuit();
    this.#now = options.now ?? (() => realClock.monotonic());
    this.#sleep = options.sleep ?? ((ms, signal) => sleep(realClock, ms, signal));
    this.#opts = options;
  }

  async send(
    chat: string,
    message: Message,
    signal?: AbortSignal,
    options: SendOptions = {},
  ): Promise<Sent> {
    const maxWaitMs = options.maxWaitMs ?? Infinity;
    const admission = this.#circuit.admit(chat, this.#now());
    if (admission.kind === "held") {
      throw new ChatError(
        `chat ${chat}: messenger unavailable (${admission.reason}); not tried again for ` +
          `${Math.ceil((admission.until - this.#now()) / 1000)} s`,
        chat,
        null,
      );
    }
    // A probe after a hold is one attempt: the ladder was paid by the send that tripped it.
    const retries = admission.kind === "probe" ? 0 : this.#opts.retries ?? 5;
    const backoff = this.#opts.backoffMs ?? 1000;
    let target = chat;
    let failures = 0;
    let throttled = 0;
    let migrations = 0;
    for (;;) {
      const slot = await this.#waitForSlot(target, maxWaitMs, signal);
      // Fencing: asked now, not before the wait, which may have lasted a minute.
      const left = (options.until?.() ?? Infinity) - this.#now();
      if (left < (this.#opts.minRequestMs ?? 1_000)) {
        this.#pacer.cancel(target, slot);
        throw new NotHeldError(
          `chat ${chat}: not sent: this process no longer holds the channel's lease (another ` +
            "process may hold it, or the database could not be reached to renew it)",
        );
      }
      const outcome = await this.#post(target, message, signal, left);
      // Telegram counts a message when it arrives, which may be up to its answer: the slot is
      // counted from then (a first request that sets up the connection arrives late).
      if (!("retryAfterS" in outcome || "migrateTo" in outcome)) {
        this.#pacer.settle(target, slot, this.#now());
      }
      if (!("transient" in outcome)) this.#circuit.reset(target);
      if ("sent" in outcome) return outcome.sent;
      // Refused without being posted: the slot was not used.
      if ("retryAfterS" in outcome || "migrateTo" in outcome) this.#pacer.cancel(target, slot);
      if ("retryAfterS" in outcome) {
        if (++throttled > MAX_429) {
          throw new ChatError(
            `chat ${target}: still rate limited after ${MAX_429} retries`,
            target,
            429,
          );
        }
        this.#opts.logger?.warn("messenger asked to slow down", {
          chat: target,
          retry_after: outcome.retryAfterS,
        });
        this.#pacer.block(target, this.#now() + outcome.retryAfterS * 1000);
        // Checked by the next wait for a slot, which throws when it is over the bound.
        continue;
      }
      if ("migrateTo" in outcome) {
        if (++migrations > 3) {
          throw new ChatError(`chat ${target}: too many chat migrations`, target, 400);
        }
        this.#opts.logger?.warn("chat migrated to a new id; update the config", {
          chat: target,
          new_chat: outcome.migrateTo,
        });
        await this.#opts.onMigrate?.(target, outcome.migrateTo);
        this.#pacer.rename(target, outcome.migrateTo);
        target = outcome.migrateTo;
        continue;
      }
      // A transient failure: a 5xx, a timeout or a network error.
      if (++failures > retries) {
        this.#circuit.trip(target, this.#now(), outcome.transient);
        throw new ChatError(
          `chat ${target}: messenger unavailable after ${retries + 1} attempt${
            retries === 0 ? "" : "s"
          }: ${outcome.transient}`,
          target,
          null,
        );
      }
      const delay = Math.min(backoff * 2 ** (failures - 1), 60_000);
      this.#opts.logger?.warn("messenger request failed; retrying", {
        chat: target,
        error: outcome.transient,
        retry_in_ms: delay,
      });
      await this.#sleep(delay, signal);
    }
  }

  /** Waits for a send slot for `chat`; resolves to the slot's booked time. */
  async #waitForSlot(chat: string, maxWaitMs: number, signal?: AbortSignal): Promise<number> {
    for (;;) {
      const now = this.#now();
      // Only the messenger's own holds are bounded: pacing within the published limits waits
      // at most a minute, and giving up on it would only delay the entries to the next run.
      const held = this.#pacer.blockedUntil(chat) - now;
      if (held > maxWaitMs) throw new RateLimitedError(chat, held);
      const r = this.#pacer.reserve(chat, now);
      if (r.reserved) {
        if (r.at > now) await this.#sleep(r.at - now, signal);
        return r.at;
      }
      // Telegram's 20 a minute for this chat are used (seeded from the state after a restart):
      // worth a line, since nothing else shows why the channel went quiet.
      this.#opts.logger?.debug("waiting for the chat's rate limit", {
        chat,
        wait_ms: Math.round(r.retryAt - now),
      });
      await this.#sleep(r.retryAt - now, signal);
    }
  }

  async #post(
    chat: string,
    message: Message,
    signal: AbortSignal | undefined,
    /** The time the fence leaves: the request is cut then. */
    leftMs: number,
  ): Promise<
    { sent: Sent } | { retryAfterS: number } | { migrateTo: string } | { transient: string }
  > {
    const body: Record<string, unknown> = message.plain
      ? { chat_id: chat, text: message.html }
      : { chat_id: chat, text: message.html, parse_mode: "HTML" };
    if (!message.previews) body.link_preview_options = { is_disabled: true };
    else if (message.previewUrl !== undefined) {
      body.link_preview_options = { url: message.previewUrl };
    }
    if (message.silent) body.disable_notification = true;
    if (message.topic !== undefined) body.message_thread_id = message.topic;
    // A request under way is not cut by `signal` (a stop): the messenger may already have
    // posted it, and only its answer lets the run mark it sent. Its own timeout bounds it;
    // the waits before it and between retries do end at once.
    if (signal?.aborted) throw signal.reason;
    const timeoutMs = Math.max(1, Math.floor(Math.min(this.#opts.timeoutMs ?? 30_000, leftMs)));
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let answer: ApiAnswer | null = null;
    try {
      response = await fetch(this.#url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: timeout,
        client: this.#opts.client,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        return { transient: `${this.#shownUrl}: no answer within ${timeoutMs} ms` };
      }
      return { transient: this.#networkFailure(error) };
    }
    this.#opts.onResponse?.(response.status);
    try {
      answer = botApiAnswer(await response.text());
    } catch (error) {
      // The status line came; a body cut short (tinyproxy closes its error pages so) is judged
      // by the status alone, as an answer that is not the Bot API's.
      if (signal?.aborted) throw signal.reason;
      if (response.ok) {
        return {
          transient: timeout.aborted
            ? `${this.#shownUrl}: no answer within ${timeoutMs} ms`
            : this.#networkFailure(error),
        };
      }
    }
    const status = answer?.error_code ?? response.status;
    if (answer?.ok === true && response.ok) {
      const id = answer.result?.message_id;
      if (typeof id !== "number") {
        throw new MessengerError(`${this.#shownUrl}: answer without a message_id`);
      }
      return { sent: { messageId: id, chat } };
    }
    if (answer === null) return this.#notBotApi(response, chat);
    const description = this.#clean(
      answer.description ?? (reasonPhrase(status) || "no description"),
    );
    if (status === 429) {
      const after = Number(answer.parameters?.retry_after);
      return { retryAfterS: Number.isFinite(after) && after > 0 ? after : 1 };
    }
    const migrate = answer.parameters?.migrate_to_chat_id;
    if (migrate !== undefined && migrate !== null && String(migrate) !== chat) {
      return { migrateTo: String(migrate) };
    }
    if (status >= 500) return { transient: `HTTP ${status} ${description}` };
    if (status === 401 || status === 404) {
      throw new MessengerFatalError(
        status === 401
          ? this.#refusedToken(description)
          : `messenger API not found at ${this.#shownUrl} (404 ${description}); check the token and --messenger-api`,
      );
    }
    if (isMessageRefusal(status, description)) {
      throw new MessageRefusedError(`chat ${chat}: ${status} ${description}`, chat, description);
    }
    throw new ChatError(chatProblem(chat, message, status, description), chat, status);
  }

  /** A 401: the token refused, where it came from and what changes it. */
  #refusedToken(description: string): string {
    const origin = this.#opts.tokenOrigin;
    if (!origin) return `messenger rejected the bot token (401 ${description})`;
    return `messenger rejected the bot token from ${origin.source} (401 ${description}); ` +
      origin.fix;
  }

  /**
   * An answer that is not the Bot API's JSON: a proxy's or a load balancer's error page, a
   * captive portal, a wrong --messenger-api. Said by its status, once, and by who gave it.
   */
  #notBotApi(response: Response, chat: string): { transient: string } {
    const status = response.status;
    const said = describeStatus(status, response.statusText);
    const byProxy = this.#answeredByProxy(response);
    const from = byProxy ? this.#proxyPlace() : this.#shownUrl;
    if (status === 407 || (byProxy && status === 401)) {
      throw new MessengerFatalError(
        `${from}: ${said}; the proxy to the messenger asks for credentials, ` +
          "check messenger_proxy's user name and password",
      );
    }
    if (status >= 500) return { transient: `${from}: ${said}` };
    if (status === 404 && !byProxy) {
      throw new MessengerFatalError(
        `messenger API not found at ${this.#shownUrl} (${said}, not a Bot API answer); ` +
          "check --messenger-api",
      );
    }
    throw new ChatError(`chat ${chat}: ${from}: ${said}, not a Bot API answer`, chat, status);
  }

  /**
   * Whether the HTTP proxy answered itself. Only a plain-http request is sent to an HTTP proxy
   * as such (an https one goes through a tunnel the proxy cannot answer in), and a proxy that
   * forwards an answer adds a `Via` header to it (RFC 9110 section 7.6.3); its own error page
   * has none.
   */
  #answeredByProxy(response: Response): boolean {
    const kind = this.#proxy?.kind;
    return (kind === "http" || kind === "https") && this.#url.startsWith("http:") &&
      !response.headers.has("via");
  }

  /** `proxy socks5://user:***@host:port (messenger)`: the proxy, never its password. */
  #proxyPlace(): string {
    return this.#proxy ? `proxy ${describeProxy(this.#proxy)} (messenger)` : this.#shownUrl;
  }

  /** A failure to get an answer, named with the place that failed: the proxy or the API. */
  #networkFailure(error: unknown): string {
    // Wrong proxy credentials fail every message alike: retrying only delays the news.
    if (PROXY_AUTH_FAILURE.test(this.#clean(error))) {
      throw new MessengerFatalError(
        `${this.#proxyPlace()}: the proxy to the messenger refused its credentials; ` +
          "check messenger_proxy's user name and password",
      );
    }
    const { reason, atProxy } = describeNetworkFailure(error, this.#proxy, this.#url);
    const place = atProxy ? this.#proxyPlace() : this.#shownUrl;
    // A feed's error is read beside its own proxy setting; the messenger's names its proxy.
    const said = this.#proxy ? `(says proxy ${describeProxy(this.#proxy)})` : "(says the proxy)";
    return `${place}: ${scrub(reason.replace("(says the proxy)", said), this.#secrets)}`;
  }

  /** An error's message with every form of the token removed. */
  #clean(error: unknown): string {
    // fetch says only "fetch failed"; the why (refused, unreachable proxy, ...) is in the causes.
    return scrub(causeChain(error).join(": "), this.#secrets).split("\n")[0];
  }
}

/**
 * A chat-level refusal as one line; for a message into a forum topic it names the topic, and
 * when the topic is what is missing it says where to look.
 */
function chatProblem(chat: string, message: Message, status: number, description: string) {
  if (message.topic === undefined) {
    return `chat ${chat}: ${status} ${description}${notFoundHint(chat, description)}`;
  }
  const hint = /thread not found|TOPIC_(?:DELETED|CLOSED|ID_INVALID)/i.test(description)
    ? `; the chat has no open forum topic ${message.topic}: check the feed's topic`
    : "";
  return `chat ${chat} topic ${message.topic}: ${status} ${description}${hint}`;
}

/** What to check when the Bot API knows no such chat: the usual set-up mistakes. */
function notFoundHint(chat: string, description: string): string {
  if (!/chat not found/i.test(description)) return "";
  return chat.startsWith("@")
    ? "; check that the bot is an administrator of the channel and that the name is spelt as " +
      "in its t.me link (a private channel has no name: use its -100... id)"
    : "; check that the bot is an administrator of the chat and the id (a channel's starts " +
      "with -100)";
}

/** The Bot API's answer, or null for anything else (an HTML error page, a non-JSON body). */
function botApiAnswer(text: string): ApiAnswer | null {
  try {
    const value: unknown = JSON.parse(text);
    const ok = (value as { ok?: unknown } | null)?.ok;
    return typeof ok === "boolean" ? value as ApiAnswer : null;
  } catch {
    return null;
  }
}
