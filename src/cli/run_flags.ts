/**
 * The flags `once` and `forward` share (config, dry run, concurrency, messenger API, log level),
 * read the same way by both.
 */
import { configPathFrom } from "../config/load.ts";
import { type Level, levelFrom, LEVELS } from "../log/logger.ts";
import { redactUrl } from "../secrets/secret.ts";
import { DEFAULT_MESSENGER_API } from "../messenger/default_api.ts";
import { parsePositiveInt } from "./args.ts";
import { UsageError } from "./errors.ts";
import { DEFAULT_CONCURRENCY } from "./defaults.ts";

export const RUN_OPTIONS = {
  config: { type: "string", short: "c" },
  "dry-run": { type: "boolean" },
  concurrency: { type: "string" },
  "messenger-api": { type: "string" },
  "log-level": { type: "string" },
} as const;

export function readRunFlags(
  command: string,
  values: {
    config?: string;
    "dry-run"?: boolean;
    concurrency?: string;
    "messenger-api"?: string;
    "log-level"?: string;
  },
) {
  const concurrency = values.concurrency === undefined
    ? DEFAULT_CONCURRENCY
    : parsePositiveInt(command, "concurrency", values.concurrency);
  // undefined: $COURIER_LOG_LEVEL, else info.
  let logLevel: Level | undefined;
  if (values["log-level"] !== undefined) {
    logLevel = levelFrom(values["log-level"]);
    if (logLevel === undefined) {
      throw new UsageError(
        `courier ${command}: --log-level must be one of ${LEVELS.join(", ")}, got "${
          values["log-level"]
        }"`,
      );
    }
  }
  return {
    configPath: configPathFrom(values.config),
    dryRun: values["dry-run"] === true,
    concurrency,
    messengerApi: messengerApiFrom(values["messenger-api"]),
    logLevel,
  };
}

/** The messenger API base URL: the flag, else $COURIER_MESSENGER_API, else Telegram's. */
export function messengerApiFrom(flag: string | undefined): string {
  const value = flag ?? Deno.env.get("COURIER_MESSENGER_API") ?? DEFAULT_MESSENGER_API;
  const protocol = URL.parse(value)?.protocol;
  if (protocol !== "http:" && protocol !== "https:") {
    throw new UsageError(
      `courier: the messenger API must be an http(s) URL, got "${redactUrl(value)}"`,
    );
  }
  return value;
}
