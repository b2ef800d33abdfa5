import { HOSTILE_STRINGS, type Random } from './random.js';

// Mutations of a JSON value that a contract-checked endpoint must refuse (the caller confirms
// that the result really breaks the contract before sending it).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Location = { parent: Json[] | { [key: string]: Json } | undefined; key: string | number; value: Json };

export type MutationKind =
  | 'wrong-type'
  | 'missing-field'
  | 'unknown-field'
  | 'hostile-string'
  | 'money-as-number'
  | 'huge-array'
  | 'huge-number';

/** Every place in the value (the root included), so a mutation can land anywhere. */
function locations(
  value: Json,
  parent?: Location['parent'],
  key: string | number = '',
  out: Location[] = [],
): Location[] {
  out.push({ parent, key, value });
  if (Array.isArray(value)) value.forEach((item, index) => locations(item, value, index, out));
  else if (value && typeof value === 'object')
    for (const [k, item] of Object.entries(value)) locations(item, value, k, out);
  return out;
}

function set(location: Location, replacement: Json, root: { value: Json }) {
  if (location.parent === undefined) root.value = replacement;
  else (location.parent as Record<string | number, Json>)[location.key] = replacement;
}

const OTHER_TYPES: Json[] = [true, null, 12, -1.5, 'text', [], {}, [1, 2], { nested: true }];

/** A mutated deep copy of `value` and the kind of mutation applied. */
export function mutateJson(value: unknown, random: Random): { value: unknown; kind: MutationKind } {
  const root = { value: structuredClone(value ?? {}) as Json };
  const all = locations(root.value);
  const strings = all.filter((l) => typeof l.value === 'string');
  const objects = all.filter((l) => l.value && typeof l.value === 'object' && !Array.isArray(l.value));
  const arrays = all.filter((l) => Array.isArray(l.value));
  const kind: MutationKind = random.pick([
    'wrong-type',
    'missing-field',
    'unknown-field',
    'hostile-string',
    'money-as-number',
    'huge-array',
    'huge-number',
  ]);
  switch (kind) {
    case 'wrong-type': {
      const target = random.pick(all);
      const choices = OTHER_TYPES.filter(
        (candidate) =>
          typeof candidate !== typeof target.value || Array.isArray(candidate) !== Array.isArray(target.value),
      );
      set(target, structuredClone(random.pick(choices)), root);
      break;
    }
    case 'missing-field': {
      const withKeys = objects.filter((l) => Object.keys(l.value as object).length > 0);
      if (withKeys.length === 0) return mutateJson(value, random);
      const target = random.pick(withKeys).value as Record<string, Json>;
      delete target[random.pick(Object.keys(target))];
      break;
    }
    case 'unknown-field': {
      if (objects.length === 0) return mutateJson(value, random);
      (random.pick(objects).value as Record<string, Json>)[`zz_unknown_${random.int(0, 999)}`] =
        random.pick(OTHER_TYPES);
      break;
    }
    case 'hostile-string': {
      const target = strings.length > 0 ? random.pick(strings) : random.pick(all);
      set(target, random.pick(HOSTILE_STRINGS), root);
      break;
    }
    case 'money-as-number': {
      const digits = strings.filter((l) => /^-?\d+$/.test(l.value as string));
      const target =
        digits.length > 0 ? random.pick(digits) : strings.length > 0 ? random.pick(strings) : random.pick(all);
      set(target, random.pick([100, 1e30, -0.5, Number.MAX_SAFE_INTEGER + 2]), root);
      break;
    }
    case 'huge-array': {
      const target = arrays.length > 0 ? random.pick(arrays) : random.pick(all);
      const item = Array.isArray(target.value) && target.value.length > 0 ? target.value[0] : 'x';
      set(
        target,
        Array.from({ length: random.pick([201, 1001]) }, () => structuredClone(item)),
        root,
      );
      break;
    }
    case 'huge-number': {
      set(random.pick(all), random.pick([2 ** 53 + 1, -(2 ** 63), 1e308, 2147483648]), root);
      break;
    }
  }
  return { value: root.value, kind };
}
