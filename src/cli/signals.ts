/** The stop signals of `once` and `forward`: the first asks for a clean stop, a second ends now. */

export type StopSignal = "SIGINT" | "SIGTERM";

/** 128 + the signal's number, as shells report a process ended by it. */
export const EXIT_CODE: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Calls `onFirst` at the first SIGINT or SIGTERM. A second one exits at once with 130/143:
 * nothing is flushed, which is safe because an entry is marked sent only after the messenger
 * accepted it (the same guarantee as a kill -9). Returns the removal of the listeners.
 */
export function onStopSignals(onFirst: (signal: StopSignal) => void): () => void {
  let received = false;
  const listeners = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const listener = () => {
      if (received) Deno.exit(EXIT_CODE[signal]);
      received = true;
      onFirst(signal);
    };
    Deno.addSignalListener(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
  };
}
