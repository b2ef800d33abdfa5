import type { PaymentStatus } from '../../generated/ledger.js';
import { jsonb } from './json.js';
import type { Db } from './sql.js';

export type PaymentRow = {
  workspaceId: string;
  ledgerId: string;
  id: string;
  ik: string;
  type: string | null;
  typeVersion: number | null;
  parameters: Record<string, string> | null;
  amount: string;
  status: PaymentStatus;
  clientSecret: string;
  requestHash: string;
  created: Date;
};

const columns = (db: Db) => db`
  workspace_id as "workspaceId", ledger_id as "ledgerId", id, ik, type, type_version as "typeVersion", parameters,
  amount::text as amount, status, client_secret as "clientSecret", request_hash as "requestHash", created`;

/** Inserts the payment unless its ik is taken in the ledger; returns the row only when it inserted. */
export async function insertPayment(db: Db, row: Omit<PaymentRow, 'created'>): Promise<PaymentRow | undefined> {
  const [inserted] = await db<PaymentRow[]>`
    /* insertPayment */
    insert into ledger_payments (workspace_id, ledger_id, id, ik, type, type_version, parameters, amount, status, client_secret, request_hash)
    values (${row.workspaceId}, ${row.ledgerId}, ${row.id}, ${row.ik}, ${row.type}, ${row.typeVersion},
            ${row.parameters === null ? null : jsonb(db, row.parameters)}, ${row.amount}, ${row.status}, ${row.clientSecret}, ${row.requestHash})
    on conflict (workspace_id, ledger_id, ik) do nothing
    returning ${columns(db)}`;
  return inserted;
}

export async function findPaymentByIk(
  db: Db,
  workspaceId: string,
  ledgerId: string,
  ik: string,
): Promise<PaymentRow | undefined> {
  const [row] = await db<PaymentRow[]>`
    /* findPaymentByIk */
    select ${columns(db)} from ledger_payments where workspace_id = ${workspaceId} and ledger_id = ${ledgerId} and ik = ${ik}`;
  return row;
}
