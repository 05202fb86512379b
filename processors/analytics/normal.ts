/**
 * Standard normal density and cumulative distribution, double precision.
 *
 * normCdf uses Hart's 1968 rational approximation (algorithm 5666, as published by G. West, "Better
 * approximations to cumulative normal functions", 2005): absolute error below 1e-14 over the whole real
 * line (relative < 1e-10 in the lower tail), no table lookups, one exp per call. Abramowitz-Stegun 7.1.26 (error ~1e-7) is too
 * coarse for the
 * 1e-4 delta tolerance after cancellation, so it is not used.
 */

export const INV_SQRT_2PI = 0.3989422804014327;

/** φ(x) = exp(−x²/2)/√(2π). */
export function normPdf(x: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * x * x);
}

/** Φ(x): absolute error < 1e-14; relative error in the lower tail < 1e-10. */
export function normCdf(x: number): number {
  const a = Math.abs(x);
  let tail: number;
  if (a > 37) {
    tail = 0;
  } else {
    const e = Math.exp(-0.5 * a * a);
    if (a < 7.07106781186547) {
      let num = 3.52624965998911e-2 * a + 0.700383064443688;
      num = num * a + 6.37396220353165;
      num = num * a + 33.912866078383;
      num = num * a + 112.079291497871;
      num = num * a + 221.213596169931;
      num = num * a + 220.206867912376;
      let den = 8.83883476483184e-2 * a + 1.75566716318264;
      den = den * a + 16.064177579207;
      den = den * a + 86.7807322029461;
      den = den * a + 296.564248779674;
      den = den * a + 637.333633378831;
      den = den * a + 793.826512519948;
      den = den * a + 440.413735824752;
      tail = (e * num) / den;
    } else {
      // Laplace continued fraction Φ(−a) = φ(a)/(a + 1/(a + 2/(a + 3/(a + …)))), 24 terms (Hart uses 5,
      // which leaves ~1e-8 relative error in this far tail).
      let b = a;
      for (let k = 24; k >= 1; k--) b = a + k / b;
      tail = (e * INV_SQRT_2PI) / b;
    }
  }
  return x > 0 ? 1 - tail : tail;
}
