import { DomainError } from './errors.js';
import type { AccountType } from './ledgerAccounts.js';

// Rules of a ledger entry that need no database: limits, and the accounting equation per
// currency, assets − liabilities = income − expense, over the entry's signed line amounts.

export const MAX_LINES_PER_ENTRY = 30;
export const MAX_TAGS = 30;
export const MAX_GROUPS = 30;

/** Each account type's sign in Σ(asset) + Σ(expense) − Σ(liability) − Σ(income) = 0. */
const EQUATION_SIGN: Record<AccountType, bigint> = { asset: 1n, expense: 1n, liability: -1n, income: -1n };

export type PostedLine = { accountType: AccountType; currency: string; amount: bigint };

/** Throws `entry_unbalanced` naming the first currency whose lines do not balance. */
export function checkBalanced(lines: readonly PostedLine[]): void {
  const totals = new Map<string, bigint>();
  for (const line of lines) {
    totals.set(line.currency, (totals.get(line.currency) ?? 0n) + EQUATION_SIGN[line.accountType] * line.amount);
  }
  for (const [currency, total] of totals) {
    if (total !== 0n) {
      throw new DomainError(
        'entry_unbalanced',
        `The lines in ${currency} do not balance: assets + expenses − liabilities − income is ${total}, not 0.`,
      );
    }
  }
}

/** Debit or credit, from the sign of the amount and the account type (assets and expenses grow by debits). */
export function lineDirection(accountType: AccountType, amount: bigint): 'debit' | 'credit' {
  const grows = amount >= 0n;
  return (EQUATION_SIGN[accountType] === 1n) === grows ? 'debit' : 'credit';
}

/** `txKey` names the external transaction a line reconciles: lines of different ones never merge. */
type WrittenLine = { accountId: string; currency: string; amount: string; txKey?: string | null };

/**
 * The lines an entry type writes (its postLinesAs): `raw_lines` as given; `skip_zero_lines`
 * without zero lines; `net_amounts` with the lines of one account, currency and transaction
 * merged into the first of them. Either way an entry whose every line is zero keeps its lines.
 */
export function linesToWrite<T extends WrittenLine>(
  lines: readonly T[],
  mode: 'net_amounts' | 'raw_lines' | 'skip_zero_lines',
): T[] {
  if (mode === 'raw_lines' || lines.every((line) => BigInt(line.amount) === 0n)) return [...lines];
  let kept = [...lines];
  if (mode === 'net_amounts') {
    const merged = new Map<string, T>();
    for (const line of lines) {
      const id = `${line.accountId}\u0000${line.currency}\u0000${line.txKey ?? ''}`;
      const first = merged.get(id);
      merged.set(id, first ? { ...first, amount: (BigInt(first.amount) + BigInt(line.amount)).toString() } : line);
    }
    kept = [...merged.values()];
  }
  const nonZero = kept.filter((line) => BigInt(line.amount) !== 0n);
  return nonZero.length > 0 ? nonZero : kept;
}
