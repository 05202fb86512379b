/**
 * The promise's outcome, or `onTimeout()`'s error after `ms`: the caller stops waiting (the promise itself runs on
 * and its late outcome is dropped). A rejection that is not an Error is wrapped in one.
 */
export function withDeadline<T>(
  p: Promise<T>,
  ms: number,
  onTimeout: () => Error = () => new Error(`timed out after ${ms} ms`),
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
