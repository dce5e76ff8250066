/**
 * The value rules of the config, as pure checks returning why a value is wrong (or null).
 * The JSON Schema in fields.ts states the same rules declaratively; a test keeps them agreeing.
 */
import { FILTER_FIELDS } from "../filter/filter.ts";
import { compilePattern } from "../filter/pattern.ts";
import { redactUrl } from "../secrets/secret.ts";
import { templateProblem } from "../messenger/template.ts";
import { cronProblem } from "./cron.ts";

export type Check = (value: unknown) => string | null;

export const NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*$";
export const CHANNEL_PATTERN = "^(@[A-Za-z][A-Za-z0-9_]{0,31}|-[0-9]{1,20})$";
export const TOKEN_PATTERN = "^[0-9]+:[A-Za-z0-9_-]+$";
export const URL_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+([/?#]\\S*)?$";
export const RHASH_PATTERN = "^[A-Za-z0-9_-]*$";
/** A libSQL server's URL: `libsql://` (Turso), `http(s)://` or `ws(s)://` (sqld). */
export const DB_URL_PATTERN =
  "^([Ll][Ii][Bb][Ss][Qq][Ll]|[Hh][Tt][Tt][Pp][Ss]?|[Ww][Ss][Ss]?)://[^\\s/?#]+([/?#]\\S*)?$";
/** A proxy value: empty (direct), a scheme://host form, or SOCKS5 over a unix socket. */
const SOCKS = "[Ss][Oo][Cc][Kk][Ss]5[Hh]?";
export const PROXY_PATTERN = "^$" +
  `|^${SOCKS}://([^\\s@/]*@)?unix/\\S+$` +
  // `socks5://unix` without a socket path is neither form.
  `|^(?!${SOCKS}://([^\\s@/]*@)?unix/?$)([Hh][Tt][Tt][Pp][Ss]?|${SOCKS})://` +
  "([^\\s@/?#]*@)?[^\\s@/?#:]+(:[0-9]{1,5})?/?$";

function describe(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "number") return Number.isInteger(value) ? "a number" : "a decimal number";
  return `a ${typeof value}`;
}

/** `value` as it would be quoted, for hints that tell the user how to write it. */
function quoted(value: unknown): string {
  return JSON.stringify(String(value));
}

/** What a value is, a string shown as written: `"5"` for a number someone quoted. */
function got(value: unknown): string {
  return `${describe(value)}${typeof value === "string" ? ` (${quoted(value)})` : ""}`;
}

export function isString(value: unknown): string | null {
  if (typeof value === "string") return null;
  if (typeof value === "number" || typeof value === "boolean") {
    return `must be a string, got ${describe(value)}; quote it: ${quoted(value)}`;
  }
  return `must be a string, got ${describe(value)}`;
}

/**
 * The type check for values that may hold a secret (the token, a proxy with a password): it
 * says what to do without echoing the value, since error output lands in logs and CI output.
 */
export function isSecretString(value: unknown): string | null {
  if (typeof value === "string") return null;
  if (typeof value === "number" || typeof value === "boolean") {
    return `must be a string (quote it), got ${describe(value)}`;
  }
  return `must be a string, got ${describe(value)}`;
}

function matching(pattern: string, what: string): Check {
  const re = new RegExp(pattern);
  return (value) => {
    const typeProblem = isString(value);
    if (typeProblem) return typeProblem;
    return re.test(value as string) ? null : `${what}, got ${quoted(value)}`;
  };
}

const nameShape = matching(
  NAME_PATTERN,
  "must start with a letter or digit and contain only letters, digits, '.', '_' and '-'",
);

export const checkName: Check = (value) =>
  nameShape(value) ?? ((value as string).length > 100 ? "must be at most 100 characters" : null);

export const checkChannel = matching(
  CHANNEL_PATTERN,
  'must be "@channel_name" or a numeric private channel id such as "-1001234567890"',
);

/** A bot token's shape; also how the validator tells a token that slipped into a key. */
export const TOKEN_RE = new RegExp(TOKEN_PATTERN);

/** A libSQL URL as shown in messages: a password or an `authToken=` in it hidden. */
export function showDbUrl(url: string): string {
  return redactUrl(url).replace(/([?&]authToken=)[^&#]*/gi, "$1***");
}

/**
 * A URL check: the type, the shape `pattern` (else "must be <what>"), then whether it parses.
 * The value is shown through `show`, since a URL may carry a password or a token.
 */
function urlCheck(typeCheck: Check, pattern: string, what: string, show: (url: string) => string) {
  const re = new RegExp(pattern);
  return (value: unknown): string | null => {
    const typeProblem = typeCheck(value);
    if (typeProblem) return typeProblem;
    const text = value as string;
    const shown = () => quoted(show(text));
    if (!re.test(text)) return `must be ${what}, got ${shown()}`;
    return URL.canParse(text) ? null : `is not a valid URL: ${shown()}`;
  };
}

export const checkDbUrl: Check = urlCheck(
  isSecretString,
  DB_URL_PATTERN,
  "a libsql://, https://, http://, wss:// or ws:// URL",
  showDbUrl,
);

export const checkToken: Check = (value) => {
  const typeProblem = isSecretString(value);
  if (typeProblem) return typeProblem;
  // The token is a secret: never echo the value back.
  return TOKEN_RE.test(value as string)
    ? null
    : 'must look like "<digits>:<token>" as given by @BotFather';
};

// A feed URL may carry a password (`https://user:pass@host/feed`); it is shown hidden.
export const checkUrl: Check = urlCheck(
  isString,
  URL_PATTERN,
  "an absolute http:// or https:// URL",
  redactUrl,
);

export const checkCron: Check = (value) => {
  const typeProblem = isString(value);
  if (typeProblem) return typeProblem;
  const text = (value as string).trim();
  const fields = text.split(/\s+/).length;
  if (!text.startsWith("@") && fields !== 5) {
    return `must have five fields (minute hour day-of-month month day-of-week), got ${fields}: ${
      quoted(value)
    }`;
  }
  const problem = cronProblem(text);
  return problem ? `invalid cron expression ${quoted(value)}: ${problem}` : null;
};

export const checkType: Check = (value) => {
  const typeProblem = isString(value);
  if (typeProblem) return typeProblem;
  return value === "rss" || value === "atom"
    ? null
    : `must be "rss" or "atom", got ${quoted(value)}`;
};

export const checkRhash = matching(
  RHASH_PATTERN,
  "must contain only letters, digits, '_' and '-' (the Instant View template hash)",
);

/** A string with something in it: a path, a feed's link text. */
export const checkNonEmpty: Check = (value) =>
  isString(value) ?? ((value as string).length === 0 ? "must not be empty" : null);

export const checkLimit: Check = (value) => {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    return `must be an integer, got ${got(value)}`;
  }
  return value >= -1 ? null : `must be -1 (no limit), 0 or a positive number, got ${value}`;
};

export const checkSilent: Check = (value) =>
  typeof value === "boolean" ? null : `must be true or false, got ${got(value)}`;

export const checkTopic: Check = (value) => {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    return `must be a forum topic's id (an integer), got ${got(value)}`;
  }
  return value >= 1 ? null : `must be a forum topic's id (1 or more), got ${value}`;
};

/** A filter item: a word, a phrase, or `/expression/flags` that RE2 can run. */
export const checkPattern: Check = (value) => {
  const typeProblem = isString(value);
  if (typeProblem) return typeProblem;
  const compiled = compilePattern(value as string);
  return typeof compiled === "string" ? compiled : null;
};

export const checkFilterField: Check = (value) => {
  const typeProblem = isString(value);
  if (typeProblem) return typeProblem;
  return (FILTER_FIELDS as readonly unknown[]).includes(value)
    ? null
    : `must be one of ${FILTER_FIELDS.join(", ")}, got ${quoted(value)}`;
};

export const checkTemplate: Check = (value) => {
  const typeProblem = isString(value);
  if (typeProblem) return typeProblem;
  const problem = templateProblem(value as string);
  return problem === null ? null : `invalid template: ${problem}`;
};

/** Builds the proxy check around the proxy parser of src/net, so both accept the same forms. */
export function proxyCheck(
  parse: (value: string) => unknown,
  allowNone: boolean,
): Check {
  return (value) => {
    const typeProblem = isSecretString(value);
    if (typeProblem) return typeProblem;
    const text = value as string;
    if (text === "") return null;
    if (text === "NONE") {
      return allowNone ? null : '"NONE" is only meaningful for messenger_proxy; use "" for direct';
    }
    try {
      parse(text);
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
}
