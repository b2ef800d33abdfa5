import { dateFilterRanges, type InstantRange } from './dateRanges.js';
import { DomainError } from './errors.js';

// List filters of entries and lines (tags, groups, types, posted and date spans, reversal
// flags) in a storage-neutral form; conditions AND together, lists inside one OR together.

export const MAX_FILTER_LIST = 100;
export const MAX_ALL_LIST = 10;

type Pair = { key: string; value: string };
type PairFilterInput = {
  all?: readonly Pair[] | null;
  contains?: Pair | null;
  equalTo?: Pair | null;
  in?: readonly Pair[] | null;
  keyEqualTo?: string | null;
  keyIn?: readonly string[] | null;
  notEqualTo?: Pair | null;
  notIn?: readonly Pair[] | null;
  notKeyEqualTo?: string | null;
  notKeyIn?: readonly string[] | null;
  not?: { keyEqualTo?: string | null; keyIn?: readonly string[] | null } | null;
};
export type PairFilter = {
  anyOf?: Pair[];
  allOf?: Pair[];
  noneOf?: Pair[];
  anyKey?: string[];
  noKey?: string[];
  contains?: Pair;
};
type StringFilterInput = {
  equalTo?: string | null;
  in?: readonly string[] | null;
  notEqualTo?: string | null;
  notIn?: readonly string[] | null;
};
export type ValueFilter = { anyOf?: string[]; noneOf?: string[] };

export type ListFilter = {
  postedAfter?: Date;
  postedBefore?: Date;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Each inner list is one condition: the instant must fall in one of its ranges. */
  postedIn: InstantRange[][];
  showHidden: boolean;
  isReversal?: boolean;
  isReversed?: boolean;
  tags?: PairFilter;
  groups?: PairFilter;
  types?: ValueFilter;
  typeVersions?: ValueFilter;
};

function bounded<T>(list: readonly T[] | null | undefined, max: number, field: string): T[] | undefined {
  if (list == null) return undefined;
  if (list.length > max)
    throw new DomainError('invalid_input_provided', `The ${field} filter takes at most ${max} values.`);
  return [...list];
}

export function pairFilter(input: PairFilterInput, field: string): PairFilter {
  const merge = <T>(one: T | null | undefined, many: T[] | undefined) =>
    one != null || many ? [...(one != null ? [one] : []), ...(many ?? [])] : undefined;
  return {
    anyOf: merge(input.equalTo, bounded(input.in, MAX_FILTER_LIST, `${field}.in`)),
    allOf: bounded(input.all, MAX_ALL_LIST, `${field}.all`),
    noneOf: merge(input.notEqualTo, bounded(input.notIn, MAX_FILTER_LIST, `${field}.notIn`)),
    anyKey: merge(input.keyEqualTo, bounded(input.keyIn, MAX_FILTER_LIST, `${field}.keyIn`)),
    noKey: merge(
      input.notKeyEqualTo ?? input.not?.keyEqualTo,
      bounded(input.notKeyIn ?? input.not?.keyIn, MAX_FILTER_LIST, `${field}.notKeyIn`),
    ),
    contains: input.contains ?? undefined,
  };
}

export function valueFilter(input: StringFilterInput, field: string): ValueFilter {
  const anyOf = [
    ...(input.equalTo != null ? [input.equalTo] : []),
    ...(bounded(input.in, MAX_FILTER_LIST, `${field}.in`) ?? []),
  ];
  const noneOf = [
    ...(input.notEqualTo != null ? [input.notEqualTo] : []),
    ...(bounded(input.notIn, MAX_FILTER_LIST, `${field}.notIn`) ?? []),
  ];
  return {
    anyOf: input.equalTo != null || input.in != null ? anyOf : undefined,
    noneOf: noneOf.length ? noneOf : undefined,
  };
}

type CommonInput = {
  posted?: { after?: string | null; before?: string | null } | null;
  created?: { after?: string | null; before?: string | null } | null;
  date?: Parameters<typeof dateFilterRanges>[0] | null;
  showHidden?: boolean | null;
  isReversal?: boolean | null;
  isReversed?: boolean | null;
  tag?: PairFilterInput | null;
};

export function listFilter(input: CommonInput | null | undefined, ledgerOffsetMinutes: number): ListFilter {
  const date = (text: string | null | undefined) => (text == null ? undefined : new Date(text));
  return {
    postedAfter: date(input?.posted?.after),
    postedBefore: date(input?.posted?.before),
    createdAfter: date(input?.created?.after),
    createdBefore: date(input?.created?.before),
    postedIn: input?.date ? dateFilterRanges(input.date, ledgerOffsetMinutes) : [],
    // Asking for reversal flags shows the hidden entries they describe.
    showHidden: Boolean(input?.showHidden || input?.isReversal || input?.isReversed),
    isReversal: input?.isReversal ?? undefined,
    isReversed: input?.isReversed ?? undefined,
    tags: input?.tag ? pairFilter(input.tag, 'tag') : undefined,
  };
}
