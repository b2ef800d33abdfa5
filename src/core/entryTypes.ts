import { DomainError } from './errors.js';
import { evaluateAmount, placeholders, renderText, type Parameters } from './templates.js';

// Entry types of a schema: finding the type an entry names, checking the caller's parameters
// against what the type declares, and rendering the type into explicit lines, conditions,
// tags, groups and description. Pure; the posting path treats the result like a runtime entry.

type Bound = { eq?: string | null; gte?: string | null; lte?: string | null };
type SchemaCondition = {
  account: { path: string };
  currency?: { code: string } | null;
  precondition?: { ownBalance?: Bound | null; totalBalance?: Bound | null } | null;
  postcondition?: { ownBalance?: Bound | null; totalBalance?: Bound | null } | null;
  repeated?: unknown;
};
type SchemaLine = {
  key: string;
  account: { path: string };
  amount?: string | null;
  currency?: { code: string; customCurrencyId?: string | null } | null;
  description?: string | null;
  tx?: unknown;
  repeated?: unknown;
  tags?: { key: string; value: string }[] | null;
};
export type SchemaEntryType = {
  type: string;
  typeVersion?: number | null;
  description?: string | null;
  lines?: SchemaLine[] | null;
  conditions?: SchemaCondition[] | null;
  groups?: { key: string; value: string }[] | null;
  tags?: { key: string; value: string }[] | null;
  parameters?: Record<string, unknown> | null;
  status?: string | null;
};

export type RenderedLine = { key: string; path: string; amount: string; currency: string | null; description: string | null };
export type RenderedCondition = { path: string; currency: string | null; precondition?: Bound; postcondition?: Bound };
export type RenderedType = {
  lines: RenderedLine[] | null;
  conditions: RenderedCondition[];
  tags: { key: string; value: string }[];
  groups: { key: string; value: string }[];
  description: string | null;
};

/** The entry type by name and version (version 1 when omitted), refusing types that are switched off. */
export function findEntryType(types: readonly SchemaEntryType[], type: string, typeVersion: number | null | undefined): SchemaEntryType {
  const version = typeVersion ?? 1;
  const found = types.find((candidate) => candidate.type === type && (candidate.typeVersion ?? 1) === version);
  if (!found) {
    throw new DomainError('entry_type_not_found', `The ledger's schema has no entry type ${type} version ${version}.`, { type, typeVersion: version });
  }
  if (found.status === 'archived' || found.status === 'disabled') {
    throw new DomainError('invalid_input_provided', `Entry type ${type} version ${version} is ${found.status}; entries of it can no longer be posted.`);
  }
  if (found.lines?.some((line) => line.repeated != null) || found.conditions?.some((condition) => condition.repeated != null)) {
    throw new DomainError('not_implemented', 'Repeated lines and conditions are not available in this version of Tally yet.');
  }
  if (found.lines?.some((line) => line.tx != null || line.tags?.length)) {
    throw new DomainError('not_implemented', 'Schema lines with tx or tags are not available in this version of Tally yet.');
  }
  return found;
}

/** Every text of the type that may hold placeholders. */
function templatedTexts(entryType: SchemaEntryType): string[] {
  const bounds = (bound: Bound | null | undefined) => [bound?.eq, bound?.gte, bound?.lte];
  return [
    entryType.description,
    ...(entryType.lines ?? []).flatMap((line) => [line.account.path, line.amount, line.currency?.code, line.description]),
    ...(entryType.conditions ?? []).flatMap((condition) => [condition.account.path, condition.currency?.code,
      ...bounds(condition.precondition?.ownBalance), ...bounds(condition.postcondition?.ownBalance)]),
    ...(entryType.tags ?? []).map((tag) => tag.value),
    ...(entryType.groups ?? []).map((group) => group.value),
  ].filter((text): text is string => typeof text === 'string');
}

/** The parameter names a type declares: its placeholders and its fixed parameters. */
export function declaredParameters(entryType: SchemaEntryType): Set<string> {
  return new Set([...templatedTexts(entryType).flatMap(placeholders), ...Object.keys(entryType.parameters ?? {})]);
}

/** The caller's parameters as a flat map of strings, merged over the type's fixed ones. */
export function entryParameters(entryType: SchemaEntryType, given: unknown): Parameters {
  if (given != null && (typeof given !== 'object' || Array.isArray(given))) {
    throw new DomainError('entry_parameters_invalid', 'parameters must be an object of strings.');
  }
  const declared = declaredParameters(entryType);
  const merged: Record<string, string> = {};
  const add = (source: Record<string, unknown>, fixed: boolean) => {
    for (const [name, value] of Object.entries(source)) {
      if (!fixed && !declared.has(name)) {
        throw new DomainError('entry_parameters_invalid', `Entry type ${entryType.type} declares no parameter ${name}.`, { parameter: name });
      }
      if (typeof value !== 'string') {
        throw new DomainError('entry_parameters_invalid', `Parameter ${name} must be a string, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`, { parameter: name });
      }
      merged[name] = value;
    }
  };
  add(entryType.parameters ?? {}, true);
  add((given ?? {}) as Record<string, unknown>, false);
  return merged;
}

/** Renders the type with the parameters; a parameter it needs and did not get is an error naming it. */
export function renderEntryType(entryType: SchemaEntryType, parameters: Parameters): RenderedType {
  const name = `entry type ${entryType.type}`;
  const bound = (given: Bound | null | undefined, where: string): Bound | undefined => given ? {
    eq: given.eq == null ? undefined : evaluateAmount(given.eq, parameters, where).toString(),
    gte: given.gte == null ? undefined : evaluateAmount(given.gte, parameters, where).toString(),
    lte: given.lte == null ? undefined : evaluateAmount(given.lte, parameters, where).toString(),
  } : undefined;
  return {
    description: entryType.description == null ? null : renderText(entryType.description, parameters, `the description of ${name}`),
    lines: entryType.lines?.length ? entryType.lines.map((line) => {
      const where = `line ${line.key} of ${name}`;
      if (line.amount == null) throw new DomainError('invalid_input_provided', `${where} has no amount.`);
      return {
        key: line.key,
        path: renderText(line.account.path, parameters, where),
        amount: evaluateAmount(line.amount, parameters, where).toString(),
        currency: line.currency ? renderText(line.currency.code, parameters, where) : null,
        description: line.description == null ? null : renderText(line.description, parameters, where),
      };
    }) : null,
    conditions: (entryType.conditions ?? []).map((condition, index) => {
      const where = `condition ${index} of ${name}`;
      if (condition.precondition?.totalBalance || condition.postcondition?.totalBalance) {
        throw new DomainError('not_implemented', 'totalBalance conditions are not available in this version of Tally yet.');
      }
      return {
        path: renderText(condition.account.path, parameters, where),
        currency: condition.currency ? renderText(condition.currency.code, parameters, where) : null,
        precondition: bound(condition.precondition?.ownBalance, where),
        postcondition: bound(condition.postcondition?.ownBalance, where),
      };
    }),
    tags: (entryType.tags ?? []).map((tag) => ({ key: tag.key, value: renderText(tag.value, parameters, `tag ${tag.key} of ${name}`) })),
    groups: (entryType.groups ?? []).map((group) => ({ key: group.key, value: renderText(group.value, parameters, `group ${group.key} of ${name}`) })),
  };
}
