import { currencyKey } from './currencyKeys.js';
import { DomainError } from './errors.js';
import { evaluateAmount, placeholders, renderText, type Parameters } from './templates.js';

// Entry types of a schema: finding the type an entry names, checking the caller's parameters
// against what the type declares, and rendering the type into explicit lines, conditions,
// tags, groups and description. Pure; the posting path treats the result like a runtime entry.

type Bound = { eq?: string | null; gte?: string | null; lte?: string | null };
type Side = { ownBalance?: Bound | null; totalBalance?: Bound | null } | null;
type Repeated = { key: string } | null;
type SchemaCurrency = { code: string; customCurrencyId?: string | null };
/** A schema line's transaction: by id or by external id within the line's linked account. */
type SchemaTx = { id?: string | null; externalId?: string | null };
type SchemaCondition = {
  account: { path: string };
  currency?: SchemaCurrency | null;
  precondition?: Side;
  postcondition?: Side;
  repeated?: Repeated;
};
type Tag = { key: string; value: string };
type SchemaLine = {
  key: string;
  account: { path: string };
  amount?: string | null;
  currency?: SchemaCurrency | null;
  description?: string | null;
  tx?: SchemaTx | null;
  repeated?: Repeated;
  tags?: Tag[] | null;
};
export type PostLinesAs = 'net_amounts' | 'raw_lines' | 'skip_zero_lines';
export type SchemaEntryType = {
  type: string;
  typeVersion?: number | null;
  description?: string | null;
  lines?: SchemaLine[] | null;
  conditions?: SchemaCondition[] | null;
  groups?: Tag[] | null;
  tags?: Tag[] | null;
  parameters?: Record<string, unknown> | null;
  status?: string | null;
  postLinesAs?: PostLinesAs | null;
};

/** Bounds of one side of a condition, rendered: own balance, total balance or both. */
export type RenderedSide = { ownBalance?: Bound; totalBalance?: Bound };
export type RenderedTx = { id?: string; externalId?: string };
export type RenderedLine = {
  key: string;
  path: string;
  amount: string;
  currency: string | null;
  description: string | null;
  tags: Tag[];
  tx: RenderedTx | null;
};
export type RenderedCondition = {
  path: string;
  currency: string | null;
  precondition?: RenderedSide;
  postcondition?: RenderedSide;
};
export type RenderedType = {
  lines: RenderedLine[] | null;
  conditions: RenderedCondition[];
  tags: Tag[];
  groups: Tag[];
  description: string | null;
};

/** At most this many copies of a repeated line or condition; an entry has at most 30 lines anyway. */
export const MAX_REPETITIONS = 30;

/** The entry type by name and version (version 1 when omitted), refusing types that are switched off. */
export function findEntryType(
  types: readonly SchemaEntryType[],
  type: string,
  typeVersion: number | null | undefined,
): SchemaEntryType {
  const version = typeVersion ?? 1;
  const found = types.find((candidate) => candidate.type === type && (candidate.typeVersion ?? 1) === version);
  if (!found) {
    throw new DomainError('entry_type_not_found', `The ledger's schema has no entry type ${type} version ${version}.`, {
      type,
      typeVersion: version,
    });
  }
  if (found.status === 'archived' || found.status === 'disabled') {
    throw new DomainError(
      'invalid_input_provided',
      `Entry type ${type} version ${version} is ${found.status}; entries of it can no longer be posted.`,
    );
  }
  return found;
}

/** A schema currency rendered to its key; a custom currency's id may come from a parameter. */
function renderCurrency(currency: SchemaCurrency | null | undefined, values: Parameters, where: string): string | null {
  if (!currency) return null;
  const code = renderText(currency.code, values, where);
  const customCurrencyId =
    currency.customCurrencyId == null ? null : renderText(currency.customCurrencyId, values, where);
  return currencyKey({ code, customCurrencyId }, where);
}

function renderTx(tx: SchemaTx, values: Parameters, where: string): RenderedTx {
  const rendered: RenderedTx = {};
  if (tx.id != null) rendered.id = renderText(tx.id, values, where);
  if (tx.externalId != null) rendered.externalId = renderText(tx.externalId, values, where);
  return rendered;
}

const boundTexts = (bound: Bound | null | undefined) => [bound?.eq, bound?.gte, bound?.lte];
const sideTexts = (side: Side | undefined) => [...boundTexts(side?.ownBalance), ...boundTexts(side?.totalBalance)];
const lineTexts = (line: SchemaLine) => [
  line.account.path,
  line.amount,
  line.currency?.code,
  line.currency?.customCurrencyId,
  line.description,
  line.tx?.id,
  line.tx?.externalId,
  ...(line.tags ?? []).map((tag) => tag.value),
];
const conditionTexts = (condition: SchemaCondition) => [
  condition.account.path,
  condition.currency?.code,
  condition.currency?.customCurrencyId,
  ...sideTexts(condition.precondition),
  ...sideTexts(condition.postcondition),
];
const strings = (texts: readonly unknown[]) => texts.filter((text): text is string => typeof text === 'string');

/** The array parameters the type repeats lines or conditions over. */
export function repeatedParameters(entryType: SchemaEntryType): Set<string> {
  return new Set(
    [...(entryType.lines ?? []), ...(entryType.conditions ?? [])].flatMap((item) =>
      item.repeated ? [item.repeated.key] : [],
    ),
  );
}

/**
 * The parameter names a type declares: its fixed parameters, the placeholders outside repeated
 * lines and conditions, and the array parameters those repeat over. Placeholders inside a
 * repeated item name fields of the array's elements (or, failing that, entry parameters).
 */
export function declaredParameters(entryType: SchemaEntryType): Set<string> {
  const texts = strings([
    entryType.description,
    ...(entryType.lines ?? []).filter((line) => !line.repeated).flatMap(lineTexts),
    ...(entryType.conditions ?? []).filter((condition) => !condition.repeated).flatMap(conditionTexts),
    ...(entryType.tags ?? []).map((tag) => tag.value),
    ...(entryType.groups ?? []).map((group) => group.value),
  ]);
  return new Set([
    ...texts.flatMap(placeholders),
    ...repeatedParameters(entryType),
    ...Object.keys(entryType.parameters ?? {}),
  ]);
}

/** An entry's parameters: strings, and arrays of string objects for repeated lines and conditions. */
export type EntryParameters = Readonly<Record<string, string | readonly Readonly<Record<string, string>>[]>>;

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/** The caller's parameters merged over the type's fixed ones, each checked against what the type declares. */
export function entryParameters(entryType: SchemaEntryType, given: unknown): EntryParameters {
  if (given != null && (typeof given !== 'object' || Array.isArray(given))) {
    throw new DomainError('entry_parameters_invalid', 'parameters must be an object of strings.');
  }
  const declared = declaredParameters(entryType);
  const repeated = repeatedParameters(entryType);
  // A Map, not an object literal: a parameter may be named __proto__ or constructor like any other.
  const merged = new Map<string, EntryParameters[string]>();
  const add = (source: Record<string, unknown>, fixed: boolean) => {
    for (const [name, value] of Object.entries(source)) {
      if (!fixed && !declared.has(name)) {
        throw new DomainError(
          'entry_parameters_invalid',
          `Entry type ${entryType.type} declares no parameter ${name}.`,
          { parameter: name },
        );
      }
      merged.set(name, repeated.has(name) ? repeatedElements(name, value) : stringParameter(name, value));
    }
  };
  add(entryType.parameters ?? {}, true);
  add((given ?? {}) as Record<string, unknown>, false);
  for (const name of repeated) {
    if (!merged.has(name)) {
      throw new DomainError(
        'entry_parameters_invalid',
        `Parameter ${name} is required (an array, one element per repeated line) but was not given.`,
        { parameter: name },
      );
    }
  }
  return Object.fromEntries(merged);
}

function stringParameter(name: string, value: unknown): string {
  if (typeof value !== 'string') {
    throw new DomainError('entry_parameters_invalid', `Parameter ${name} must be a string, not ${kindOf(value)}.`, {
      parameter: name,
    });
  }
  return value;
}

function repeatedElements(name: string, value: unknown): Record<string, string>[] {
  if (!Array.isArray(value)) {
    throw new DomainError(
      'entry_parameters_invalid',
      `Parameter ${name} repeats lines and must be an array of objects, not ${kindOf(value)}.`,
      { parameter: name },
    );
  }
  if (value.length > MAX_REPETITIONS) {
    throw new DomainError(
      'entry_parameters_invalid',
      `Parameter ${name} has ${value.length} elements; at most ${MAX_REPETITIONS} are allowed.`,
      { parameter: name },
    );
  }
  return (value as unknown[]).map((element, index) => {
    if (element === null || typeof element !== 'object' || Array.isArray(element)) {
      throw new DomainError(
        'entry_parameters_invalid',
        `${name}[${index}] must be an object of strings, not ${kindOf(element)}.`,
        { parameter: name },
      );
    }
    return Object.fromEntries(
      Object.entries(element).map(([field, text]) => [field, stringParameter(`${name}[${index}].${field}`, text)]),
    );
  });
}

/** The string parameters, the view every text outside a repeated item renders with. */
export function flatParameters(parameters: EntryParameters): Parameters {
  return Object.fromEntries(
    Object.entries(parameters).filter((pair): pair is [string, string] => typeof pair[1] === 'string'),
  );
}

/** One rendering per copy of an item: once when not repeated, else once per element (its fields first). */
function copiesOf<T extends { repeated?: Repeated }>(
  item: T,
  parameters: EntryParameters,
  flat: Parameters,
): { parameters: Parameters; suffix: string }[] {
  if (!item.repeated) return [{ parameters: flat, suffix: '' }];
  const elements = parameters[item.repeated.key] as readonly Record<string, string>[];
  return elements.map((element, index) => ({ parameters: { ...flat, ...element }, suffix: `.${index}` }));
}

/** Renders the type with the parameters; a parameter it needs and did not get is an error naming it. */
export function renderEntryType(entryType: SchemaEntryType, parameters: EntryParameters): RenderedType {
  const name = `entry type ${entryType.type}`;
  const flat = flatParameters(parameters);
  const bound = (given: Bound | null | undefined, values: Parameters, where: string): Bound | undefined =>
    given
      ? {
          eq: given.eq == null ? undefined : evaluateAmount(given.eq, values, where).toString(),
          gte: given.gte == null ? undefined : evaluateAmount(given.gte, values, where).toString(),
          lte: given.lte == null ? undefined : evaluateAmount(given.lte, values, where).toString(),
        }
      : undefined;
  const side = (given: Side | undefined, values: Parameters, where: string): RenderedSide | undefined =>
    given
      ? {
          ownBalance: bound(given.ownBalance, values, where),
          totalBalance: bound(given.totalBalance, values, where),
        }
      : undefined;
  return {
    description:
      entryType.description == null ? null : renderText(entryType.description, flat, `the description of ${name}`),
    lines: entryType.lines?.length
      ? entryType.lines.flatMap((line) =>
          copiesOf(line, parameters, flat).map(({ parameters: values, suffix }) => {
            const where = `line ${line.key}${suffix} of ${name}`;
            if (line.amount == null) throw new DomainError('invalid_input_provided', `${where} has no amount.`);
            return {
              key: `${line.key}${suffix}`,
              path: renderText(line.account.path, values, where),
              amount: evaluateAmount(line.amount, values, where).toString(),
              currency: renderCurrency(line.currency, values, where),
              description: line.description == null ? null : renderText(line.description, values, where),
              tags: (line.tags ?? []).map((tag) => ({
                key: tag.key,
                value: renderText(tag.value, values, `tag ${tag.key} of ${where}`),
              })),
              tx: line.tx ? renderTx(line.tx, values, where) : null,
            };
          }),
        )
      : null,
    conditions: (entryType.conditions ?? []).flatMap((condition, index) =>
      copiesOf(condition, parameters, flat).map(({ parameters: values, suffix }) => {
        const where = `condition ${index}${suffix} of ${name}`;
        return {
          path: renderText(condition.account.path, values, where),
          currency: renderCurrency(condition.currency, values, where),
          precondition: side(condition.precondition, values, where),
          postcondition: side(condition.postcondition, values, where),
        };
      }),
    ),
    tags: (entryType.tags ?? []).map((tag) => ({
      key: tag.key,
      value: renderText(tag.value, flat, `tag ${tag.key} of ${name}`),
    })),
    groups: (entryType.groups ?? []).map((group) => ({
      key: group.key,
      value: renderText(group.value, flat, `group ${group.key} of ${name}`),
    })),
  };
}
