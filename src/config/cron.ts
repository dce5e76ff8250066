import { Cron } from "croner";

const OPTIONS = { mode: "5-part", paused: true } as const;

/** Why `expression` is not a usable five-field cron expression, or null when it is. */
export function cronProblem(expression: string): string | null {
  try {
    new Cron(expression, OPTIONS).stop();
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.replace(/^CronPattern:\s*/, "");
  }
}

/** The first time `expression` fires strictly after `from`, or null if it never does again. */
export function nextCronRun(expression: string, from: Date): Date | null {
  const job = new Cron(expression, OPTIONS);
  try {
    return job.nextRun(from);
  } finally {
    job.stop();
  }
}
