import { Cron } from "croner";

const OPTIONS = { mode: "5-part", paused: true } as const;

/**
 * Why `expression` is not a usable five-field cron expression, or null when it is. Remembered
 * per expression: a config repeats a few schedules over many feeds.
 */
export function cronProblem(expression: string): string | null {
  let problem = problems.get(expression);
  if (problem === undefined) {
    problem = findCronProblem(expression);
    if (problems.size >= 10_000) problems.clear();
    problems.set(expression, problem);
  }
  return problem;
}

const problems = new Map<string, string | null>();

function findCronProblem(expression: string): string | null {
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
