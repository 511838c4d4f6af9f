// Types for moto-python.mjs (used from test/support/moto.ts).
export function findMotoPython(env?: Record<string, string | undefined>): { python: string; version: string; missing?: undefined } | { missing: string; tried: string[]; python?: undefined };
