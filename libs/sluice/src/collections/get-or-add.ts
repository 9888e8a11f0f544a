/** What get-or-add needs of a Map or a WeakMap. */
interface Keyed<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** The value `map` holds for `key`, added from `create` when there is none. */
export function getOrAdd<K, V>(map: Keyed<K, V>, key: K, create: () => NoInfer<V>): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/** Fresh maps: a `create` for getOrAdd that is not a closure made on every call. */
export const newMap = <K, V>(): Map<K, V> => new Map<K, V>();
export const newWeakMap = <K extends object, V>(): WeakMap<K, V> => new WeakMap<K, V>();
