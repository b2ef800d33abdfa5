import type { components } from '../../generated/billing.js';
import type { components as sandbox } from '../../generated/sandbox.js';

/** The closed error catalogue of spec/billing.openapi.yaml (`ErrorCode`), shared by REST and GraphQL. */
export type ApiErrorCode = components['schemas']['ErrorCode'];
type SandboxErrorCode = sandbox['schemas']['SandboxErrorCode'];
/** Every code Tally answers: the APIs' catalogue and the sandbox admin API's own codes. */
export type ErrorCode = ApiErrorCode | SandboxErrorCode;

type CodeInfo = { status: number; retryable: boolean };

// `satisfies` makes the compiler reject a code the spec lacks, and a spec code left unmapped.
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, retryable: false },
  malformed_json: { status: 400, retryable: false },
  invalid_amount: { status: 400, retryable: false },
  invalid_price: { status: 400, retryable: false },
  over_allocated: { status: 400, retryable: false },
  unknown_product: { status: 400, retryable: false },
  unknown_role: { status: 400, retryable: false },
  unknown_user: { status: 400, retryable: false },
  unknown_invoice: { status: 400, retryable: false },
  unknown_line_item: { status: 400, retryable: false },
  unknown_account: { status: 400, retryable: false },
  unsupported_grant_type: { status: 400, retryable: false },
  unauthorized: { status: 401, retryable: false },
  token_expired: { status: 401, retryable: false },
  invalid_client: { status: 401, retryable: false },
  route_not_found: { status: 404, retryable: false },
  product_not_found: { status: 404, retryable: false },
  invoice_not_found: { status: 404, retryable: false },
  transaction_not_found: { status: 404, retryable: false },
  payment_flow_not_found: { status: 404, retryable: false },
  payment_not_found: { status: 404, retryable: false },
  method_not_allowed: { status: 405, retryable: false },
  product_code_taken: { status: 409, retryable: false },
  idempotency_key_reused: { status: 409, retryable: false },
  version_conflict: { status: 409, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  unsupported_media_type: { status: 415, retryable: false },
  not_acceptable: { status: 406, retryable: false },
  too_many_requests: { status: 429, retryable: true },
  internal_error: { status: 500, retryable: true },
  not_implemented: { status: 501, retryable: false },
  service_unavailable: { status: 503, retryable: true },
  deadline_exceeded: { status: 503, retryable: true },
  ledger_not_found: { status: 400, retryable: false },
  ledger_ik_reserved: { status: 400, retryable: false },
  ledger_account_not_found: { status: 400, retryable: false },
  ledger_entry_not_found: { status: 400, retryable: false },
  schema_not_found: { status: 400, retryable: false },
  invalid_input_provided: { status: 400, retryable: false },
  entry_unbalanced: { status: 400, retryable: false },
  entry_condition_failed: { status: 400, retryable: false },
  ledger_entry_too_many_lines: { status: 400, retryable: false },
  ledger_entry_batch_operation_failed: { status: 400, retryable: false },
  strong_consistency_unavailable: { status: 400, retryable: false },
  entry_type_not_found: { status: 400, retryable: false },
  entry_parameters_invalid: { status: 400, retryable: false },
  schema_change_incompatible: { status: 400, retryable: false },
  schema_in_use: { status: 400, retryable: false },
  ledger_entry_immutable: { status: 400, retryable: false },
  custom_currency_not_found: { status: 400, retryable: false },
  link_not_found: { status: 400, retryable: false },
  external_account_not_found: { status: 400, retryable: false },
  tx_not_found: { status: 400, retryable: false },
  tx_already_reconciled: { status: 400, retryable: false },
  reconciliation_required: { status: 400, retryable: false },
  payment_type_not_found: { status: 400, retryable: false },
  graphql_parse_failed: { status: 400, retryable: false },
  graphql_validation_failed: { status: 400, retryable: false },
  query_too_complex: { status: 400, retryable: false },
} as const satisfies Record<ApiErrorCode, CodeInfo>;

/** The codes only the sandbox admin API answers (spec/sandbox.openapi.yaml `SandboxErrorCode`). */
export const SANDBOX_ERROR_CATALOGUE = {
  workspace_not_found: { status: 404, retryable: false },
  snapshot_not_found: { status: 404, retryable: false },
  snapshot_exists: { status: 409, retryable: false },
  snapshot_outdated: { status: 409, retryable: false },
  fault_not_found: { status: 404, retryable: false },
  clock_backwards: { status: 409, retryable: false },
} as const satisfies Record<Exclude<SandboxErrorCode, ApiErrorCode>, CodeInfo>;

const EVERY_CODE: Record<ErrorCode, CodeInfo> = { ...ERROR_CATALOGUE, ...SANDBOX_ERROR_CATALOGUE };

export type Violation = { pointer: string; message: string };

/** An expected failure: carries a catalogue code; the transport decides how to render it. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details?: { violations?: Violation[] } & Record<string, unknown>;
  /** The Retry-After of a retryable answer, when not the default 1 (a sandbox fault may choose it). */
  retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, details?: DomainError['details']) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return EVERY_CODE[this.code].status;
  }

  get retryable(): boolean {
    return EVERY_CODE[this.code].retryable;
  }
}
