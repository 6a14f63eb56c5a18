// Money columns are integer minor units and read as numbers; a sum of them is a bigint, which the
// drivers give as a string. This reads one as the number it is.

/** A sum of money columns (bigint) as a number of minor units; past 2^53 it is refused, never rounded. */
export function moneySum(value: string | number | bigint): number {
  const sum = Number(value);
  if (!Number.isSafeInteger(sum)) throw new RangeError(`a sum of money past 2^53 minor units: ${value}`);
  return sum;
}
