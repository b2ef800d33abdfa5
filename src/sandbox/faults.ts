import { randomInt } from 'node:crypto';
import type { components } from '../../generated/sandbox.js';
import { DomainError, ERROR_CATALOGUE } from '../core/errors.js';
import { newId } from '../core/ids.js';

export type Fault = components['schemas']['Fault'];
export type FaultRule = components['schemas']['FaultRule'];
export type FaultRuleCreate = components['schemas']['FaultRuleCreate'];

/**
 * The fault rules of every workspace, in this process's memory: they are test fixtures, set and
 * cleared by the admin API, and consulted on every request of a workspace that has some (a Map
 * lookup for the others).
 */
export type FaultRules = ReturnType<typeof faultRules>;

export function faultRules(random: () => number = () => randomInt(0, 2 ** 32) / 2 ** 32) {
  const byWorkspace = new Map<string, FaultRule[]>();

  return {
    add(workspaceId: string, create: FaultRuleCreate): FaultRule {
      checkCode(create.fault, '/body/fault');
      const rule: FaultRule = {
        id: newId('fault'),
        operation: create.operation,
        fault: create.fault,
        count: create.count ?? null,
        probability: create.probability ?? 1,
        matched: 0,
        created: new Date().toISOString(),
      };
      byWorkspace.set(workspaceId, [...(byWorkspace.get(workspaceId) ?? []), rule]);
      return rule;
    },

    list: (workspaceId: string): FaultRule[] => byWorkspace.get(workspaceId) ?? [],

    clear(workspaceId: string): void {
      byWorkspace.delete(workspaceId);
    },

    remove(workspaceId: string, faultId: string): FaultRule {
      const rules = byWorkspace.get(workspaceId) ?? [];
      const rule = rules.find((candidate) => candidate.id === faultId);
      if (!rule) throw new DomainError('fault_not_found', `The workspace has no fault rule ${faultId}.`);
      keep(
        workspaceId,
        rules.filter((candidate) => candidate !== rule),
      );
      return rule;
    },

    /** Whether any request of the workspace could meet a fault (the cheap check every request makes). */
    active: (workspaceId: string): boolean => byWorkspace.has(workspaceId),

    /**
     * The fault for a request of the workspace to these operations: the oldest rule naming one
     * of them (or `*`) whose dice say yes. Taking it counts it, and a rule whose count is spent goes.
     */
    take(workspaceId: string, operations: readonly string[]): { fault: Fault; operation: string } | undefined {
      const rules = byWorkspace.get(workspaceId);
      if (!rules) return undefined;
      const rule = rules.find(
        (candidate) =>
          (candidate.operation === '*' || operations.includes(candidate.operation)) &&
          (candidate.probability >= 1 || random() < candidate.probability),
      );
      if (!rule) return undefined;
      rule.matched += 1;
      if (rule.count !== null) {
        rule.count -= 1;
        if (rule.count === 0)
          keep(
            workspaceId,
            rules.filter((candidate) => candidate !== rule),
          );
      }
      return { fault: rule.fault, operation: rule.operation };
    },
  };

  function keep(workspaceId: string, rules: FaultRule[]) {
    if (rules.length === 0) byWorkspace.delete(workspaceId);
    else byWorkspace.set(workspaceId, rules);
  }
}

/** An error fault must name a code of the catalogue; the contract's pattern alone cannot say which. */
export function checkCode(fault: Fault, pointer: string): void {
  if (fault.type === 'error' && !Object.hasOwn(ERROR_CATALOGUE, fault.code)) {
    throw new DomainError('invalid_request', 'The fault names a code outside the error catalogue.', {
      violations: [{ pointer: `${pointer}/code`, message: 'must be a code of the error catalogue' }],
    });
  }
}
