/**
 * `call`, or the error `late()` makes once `ms` passed without its answer. The call itself
 * cannot be taken back: it goes on, and a failure it ends with later is ignored.
 */
export function race<T>(call: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  call.catch(() => {});
  return Promise.race([call, expired]).finally(() => clearTimeout(timer));
}
