import type { z } from 'zod';

/** Schema kinds whose output is their input (`never`, a strict object's catch-all, parses nothing). */
const STABLE_LEAVES = new Set(['string', 'number', 'boolean', 'null', 'literal', 'enum', 'any', 'unknown', 'never']);

interface Def {
  type: string;
  coerce?: boolean;
  checks?: { _zod: { def: { check: string } } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  innerType?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

const known = new WeakMap<z.ZodType, boolean>();

/**
 * Whether parsing JSON with `schema` gives back the same JSON, field for field, except object keys
 * the schema does not name (dropped) and key order (the schema's): no transform, pipe, coercion,
 * default, catch or rewriting check (trim, case) anywhere inside it. A reply of such a schema,
 * serialised from what it parsed to, can be forwarded as bytes with nothing to redo (the gateway's
 * `RpcClient.forward`); any other kind answers false, so an unknown one is never taken as stable.
 */
export function isWireStable(schema: z.ZodType): boolean {
  let stable = known.get(schema);
  if (stable === undefined) {
    stable = stableWithin(schema, new Set());
    known.set(schema, stable);
  }
  return stable;
}

function stableWithin(schema: z.ZodType, seen: Set<z.ZodType>): boolean {
  if (seen.has(schema)) return true; // a recursive schema: its other branches decide
  seen.add(schema);
  const def = defOf(schema);
  if (def.coerce || def.checks?.some((c) => c._zod.def.check === 'overwrite')) return false;
  const all = (inner: (z.ZodType | null | undefined)[]) => inner.every((s) => s == null || stableWithin(s, seen));
  switch (def.type) {
    case 'object':
      return all([...Object.values(def.shape ?? {}), def.catchall]);
    case 'array':
      return all([def.element]);
    case 'union':
      return all(def.options ?? []);
    case 'optional':
    case 'nullable':
    case 'readonly':
    case 'nonoptional':
      return all([def.innerType]);
    case 'record':
      return all([def.keyType, def.valueType]);
    case 'tuple':
      return all([...(def.items ?? []), def.rest]);
    case 'intersection':
      return all([def.left, def.right]);
    case 'lazy':
      return def.getter !== undefined && all([def.getter()]);
    default:
      return STABLE_LEAVES.has(def.type);
  }
}
