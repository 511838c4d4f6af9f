// Plain-object helpers that are safe with keys such as `__proto__` coming from user YAML.

export type Dict = Record<string, unknown>;

export const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `obj[key] = value` as an own property, even for `__proto__` (plain assignment would set the prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
