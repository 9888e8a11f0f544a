/**
 * Floor division that stays exact for integers up to 2^53. A plain Math.floor(a / b) can round
 * up when the quotient lies within one ulp below an integer (large timestamps, long periods).
 * integer-math.lua holds the same functions for the scripts; both twins must agree bit for bit.
 */
export function idiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  if (q * b > a) q -= 1;
  else if ((q + 1) * b <= a) q += 1;
  return q;
}

export function imod(a: number, b: number): number {
  return a - idiv(a, b) * b;
}

export function ceilDiv(a: number, b: number): number {
  return idiv(a + b - 1, b);
}
