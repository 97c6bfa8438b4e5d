/**
 * The item at index i of a list known to hold it; throws otherwise. For
 * tests and for lists whose length was just checked, where
 * noUncheckedIndexedAccess would otherwise make every read optional.
 */
export function nth<T>(list: readonly T[], i: number): T {
  const item = list[i];
  if (item === undefined) throw new Error(`no item at index ${i} of ${list.length}`);
  return item;
}
