import type { LedgerEntryInput } from '../../../generated/ledger.js';
import {
  entryParameters,
  findEntryType,
  renderEntryType,
  type EntryParameters,
  type PostLinesAs,
} from '../../core/entryTypes.js';
import { optionalCurrencyKey } from '../../core/currencyKeys.js';
import { DomainError } from '../../core/errors.js';
import type { LoadedSchema } from '../schemas/schemaVersions.js';

// Every entry, typed or not, becomes the same explicit form before it is checked and posted:
// lines and conditions with their accounts named, tags, groups and a description. A typed
// entry gets them from its schema type rendered with the caller's parameters.

type LineInput = NonNullable<LedgerEntryInput['lines']>[number];
type ConditionInput = NonNullable<LedgerEntryInput['conditions']>[number];
export type AccountRef = {
  id?: string | null;
  path?: string | null;
  ik?: string | null;
  ledger?: { id?: string | null; ik?: string | null } | null;
};
type Bound = { eq?: string | null; gte?: string | null; lte?: string | null };
type Side = { ownBalance?: Bound | null; totalBalance?: Bound | null } | null | undefined;

type Tag = { key: string; value: string };
/** A TxMatchInput, or a schema line's rendered `tx` (id, or external id in the line's linked account). */
export type TxRef = {
  id?: string | null;
  externalId?: string | null;
  accountId?: string | null;
  externalAccountId?: string | null;
  linkId?: string | null;
};
export type ExplicitLine = {
  account: AccountRef;
  amount: string | null;
  currency: string | null;
  key: string | null;
  description: string | null;
  tx: TxRef | null;
  tags: Tag[];
};
export type ExplicitCondition = {
  account: AccountRef;
  currency: string | null;
  precondition: Side;
  postcondition: Side;
};
export type ExplicitEntry = {
  type: string | null;
  typeVersion: number | null;
  parameters: EntryParameters | null;
  lines: ExplicitLine[];
  conditions: ExplicitCondition[];
  tags: { key: string; value: string }[];
  groups: { key: string; value: string }[];
  description: string | null;
  /** How the type's lines are written; runtime entries write theirs as given. */
  postLinesAs: PostLinesAs;
};

const callerLine = (line: LineInput): ExplicitLine => ({
  account: line.account,
  amount: line.amount ?? null,
  currency: optionalCurrencyKey(line.currency),
  key: line.key ?? null,
  description: line.description ?? null,
  tx: line.tx ?? null,
  tags: (line.tags ?? []).map(({ key, value }) => ({ key, value })),
});
const callerCondition = (condition: ConditionInput): ExplicitCondition => ({
  account: condition.account,
  currency: optionalCurrencyKey(condition.currency),
  precondition: condition.precondition,
  postcondition: condition.postcondition,
});

export function explicitEntry(entry: LedgerEntryInput, schema: LoadedSchema | undefined): ExplicitEntry {
  const tags = entry.tags ?? [];
  const groups = entry.groups ?? [];
  if (entry.type == null) {
    if (entry.typeVersion != null || entry.parameters != null) {
      throw new DomainError(
        'invalid_input_provided',
        'typeVersion and parameters belong to typed entries; name the entry type.',
      );
    }
    return {
      type: null,
      typeVersion: null,
      parameters: null,
      lines: (entry.lines ?? []).map(callerLine),
      conditions: (entry.conditions ?? []).map(callerCondition),
      tags: [...tags],
      groups: [...groups],
      description: entry.description ?? null,
      postLinesAs: 'raw_lines',
    };
  }
  if (!schema)
    throw new DomainError(
      'entry_type_not_found',
      `Entry type ${entry.type} needs a ledger on a schema; this ledger has none.`,
      { type: entry.type },
    );
  const entryType = findEntryType(schema.content.ledgerEntries?.types ?? [], entry.type, entry.typeVersion);
  const parameters = entryParameters(entryType, entry.parameters);
  const rendered = renderEntryType(entryType, parameters);
  if (rendered.lines && entry.lines != null) {
    throw new DomainError(
      'invalid_input_provided',
      `Entry type ${entry.type} defines its lines; send parameters, not lines.`,
    );
  }
  if (!rendered.lines && entry.lines == null) {
    throw new DomainError('invalid_input_provided', `Entry type ${entry.type} defines no lines; send them in lines.`);
  }
  // The caller's tags win over the type's for the same key; groups add up.
  const callerTagKeys = new Set(tags.map((tag) => tag.key));
  const groupIds = new Set(groups.map((group) => `${group.key}\u0000${group.value}`));
  return {
    type: entryType.type,
    typeVersion: entryType.typeVersion ?? 1,
    parameters,
    lines: rendered.lines
      ? rendered.lines.map((line) => ({ ...line, account: { path: line.path } }))
      : entry.lines!.map(callerLine),
    conditions: [
      ...rendered.conditions.map((condition) => ({
        account: { path: condition.path },
        currency: condition.currency,
        precondition: condition.precondition,
        postcondition: condition.postcondition,
      })),
      ...(entry.conditions ?? []).map(callerCondition),
    ],
    tags: [...rendered.tags.filter((tag) => !callerTagKeys.has(tag.key)), ...tags],
    groups: [...rendered.groups.filter((group) => !groupIds.has(`${group.key}\u0000${group.value}`)), ...groups],
    description: entry.description ?? rendered.description,
    postLinesAs: entryType.postLinesAs ?? 'raw_lines',
  };
}
