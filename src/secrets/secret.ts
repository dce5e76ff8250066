/**
 * A value that must never be printed: the bot token, a proxy password, an auth token.
 * Every way JavaScript turns it into text yields "[redacted]"; only `reveal()` gives the value,
 * so a leak needs an explicit call that reviewers can grep for.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return "[redacted]";
  }

  toJSON(): string {
    return "[redacted]";
  }

  [Symbol.for("Deno.customInspect")](): string {
    return "[redacted]";
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return "[redacted]";
  }
}

/** The URL with any password (and the user name beside it) replaced, for display. */
export function redactUrl(url: string): string {
  return url.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i,
    (_m, scheme: string, cred: string) => {
      const user = cred.split(":")[0];
      return cred.includes(":") ? `${scheme}${user}:***@` : `${scheme}${cred}@`;
    },
  );
}

/** Replaces every occurrence of each secret in `text`; a last line of defence for messages. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length >= 4) out = out.replaceAll(s, "[redacted]");
  }
  return out;
}
