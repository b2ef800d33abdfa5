import { graphql } from '../api.js';
import { h, table } from '../dom.js';
import { formatAmount, formatInstant, type CurrencyRef } from '../format.js';
import { ENTRY } from '../queries.js';
import { link } from '../router.js';
import { amounts, code, facts, found, heading, section, tags } from '../view.js';

type Bound = { eq: string | null; gte: string | null; lte: string | null } | null;
type Condition = { ownBalance: Bound; totalBalance: Bound } | null;

type Entry = {
  id: string;
  ik: string;
  type: string | null;
  typeVersion: number | null;
  description: string | null;
  posted: string;
  created: string;
  hidden: boolean;
  isReversal: boolean;
  isReversed: boolean;
  reversedAt: string | null;
  parameters: Record<string, unknown> | null;
  ledger: { id: string; name: string };
  tags: { key: string; value: string }[];
  groups: { key: string; value: string }[];
  conditions: {
    account: { id: string; path: string };
    currency: CurrencyRef;
    precondition: Condition;
    postcondition: Condition;
  }[];
  reverses: { id: string; posted: string } | null;
  reversedBy: { id: string; posted: string } | null;
  lines: {
    nodes: {
      id: string;
      amount: string;
      description: string | null;
      key: string | null;
      currency: CurrencyRef;
      account: { id: string; path: string };
      tags: { key: string; value: string }[];
    }[];
  };
};

type History = {
  nodes: { id: string; posted: string; created: string; isReversal: boolean; reversalPosition: number }[];
};

export async function entryPage(entryId: string): Promise<HTMLElement> {
  const answer = await graphql<{ ledgerEntry: Entry | null; ledgerEntryHistory: History }>(ENTRY, { id: entryId });
  const entry = found(answer.ledgerEntry, 'Entry');
  return h(
    'div',
    null,
    heading(
      'Entry',
      entry.description ?? entry.type ?? entry.ik,
      facts([
        ['Ledger', link({ page: 'ledger', ledgerId: entry.ledger.id }, entry.ledger.name)],
        ['Ik', code(entry.ik)],
        ['Type', entry.type ? `${entry.type}${entry.typeVersion ? ` (schema v${entry.typeVersion})` : ''}` : 'untyped'],
        ['Posted', formatInstant(entry.posted)],
        ['Created', formatInstant(entry.created)],
        [
          'Reverses',
          entry.reverses && link({ page: 'entry', entryId: entry.reverses.id }, formatInstant(entry.reverses.posted)),
        ],
        [
          'Reversed by',
          entry.reversedBy &&
            link({ page: 'entry', entryId: entry.reversedBy.id }, formatInstant(entry.reversedBy.posted)),
        ],
        ['Hidden', entry.hidden ? 'yes' : null],
      ]),
    ),
    section(
      'Lines',
      table(
        'Lines of the entry, in the order written',
        ['Account', 'Amount', 'Key', 'Description', 'Tags'],
        entry.lines.nodes.map((line) => [
          link({ page: 'account', accountId: line.account.id }, line.account.path),
          amounts([line], `line:${line.account.path}`),
          code(line.key),
          line.description ?? '',
          tags(line.tags),
        ]),
        { class: 'lines' },
      ),
    ),
    section(
      'Parameters',
      entry.parameters ? h('pre', null, JSON.stringify(entry.parameters, null, 2)) : h('p', { class: 'muted' }, 'none'),
    ),
    section('Tags', h('p', null, tags(entry.tags))),
    section(
      'Groups',
      h(
        'p',
        null,
        entry.groups.length
          ? entry.groups.map((group) =>
              link(
                { page: 'group', ledgerId: entry.ledger.id, key: group.key, value: group.value },
                `${group.key}: ${group.value}`,
              ),
            )
          : h('span', { class: 'muted' }, 'none'),
      ),
    ),
    section(
      'Conditions',
      table(
        'Conditions the entry was posted under',
        ['Account', 'Currency', 'Before', 'After'],
        entry.conditions.map((condition) => [
          link({ page: 'account', accountId: condition.account.id }, condition.account.path),
          condition.currency.customCurrencyId ?? condition.currency.code,
          describe(condition.precondition, condition.currency.precision),
          describe(condition.postcondition, condition.currency.precision),
        ]),
      ),
    ),
    section(
      'Reversals and reposts',
      table(
        'Every entry with this ik, oldest first',
        ['Posted', 'Created', 'Kind'],
        answer.ledgerEntryHistory.nodes.map((node) => [
          node.id === entry.id
            ? h('strong', null, formatInstant(node.posted))
            : link({ page: 'entry', entryId: node.id }, formatInstant(node.posted)),
          formatInstant(node.created),
          node.isReversal ? 'reversal' : node.reversalPosition === 0 ? 'original' : 'repost',
        ]),
      ),
    ),
  );
}

function describe(condition: Condition, precision: number): string {
  if (!condition) return '—';
  const parts: string[] = [];
  for (const [name, bound] of [
    ['own balance', condition.ownBalance],
    ['total balance', condition.totalBalance],
  ] as const) {
    if (!bound) continue;
    if (bound.eq !== null) parts.push(`${name} = ${formatAmount(bound.eq, precision)}`);
    if (bound.gte !== null) parts.push(`${name} ≥ ${formatAmount(bound.gte, precision)}`);
    if (bound.lte !== null) parts.push(`${name} ≤ ${formatAmount(bound.lte, precision)}`);
  }
  return parts.join(', ') || '—';
}
