import { DomainError, type ErrorCode } from '../../src/core/errors.js';

/** What a refusal says: its code, its message and, only when it has them, its details. */
export type Refusal = { code: ErrorCode; message: string; details?: DomainError['details'] };

/**
 * The refusal `run` throws, as a plain object to compare with `toEqual`. Throws (so the test
 * fails) when `run` throws nothing, or throws something other than a DomainError.
 */
export function refusalOf(run: () => unknown): Refusal {
  try {
    run();
  } catch (error) {
    if (!(error instanceof DomainError)) {
      throw new Error(`expected a DomainError, but the call threw ${String(error)}`, { cause: error });
    }
    const { code, message, details } = error;
    return details === undefined ? { code, message } : { code, message, details };
  }
  throw new Error('expected a DomainError, but the call threw nothing');
}
