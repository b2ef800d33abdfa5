import type { HandlerTable } from './handler.js';

/** Every REST operation Tally serves, by operationId. Operations of the spec missing here answer 501. */
export const handlers: HandlerTable = {};
