import type { CaseResult } from './run.js';

// The conformance suite's two reports: lines for a person, JUnit XML for a CI server.

export function summary(results: CaseResult[]): { pass: number; fail: number; skip: number } {
  return {
    pass: results.filter((r) => r.outcome === 'pass').length,
    fail: results.filter((r) => r.outcome === 'fail').length,
    skip: results.filter((r) => r.outcome === 'skip').length,
  };
}

/** One line per example, then the totals per contract and overall. */
export function textReport(results: CaseResult[]): string {
  const lines = results.map((r) => textLine(r));
  for (const contract of ['billing', 'ledger'] as const) {
    const counts = summary(results.filter((r) => r.contract === contract));
    lines.push(`${contract}: ${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped`);
  }
  const all = summary(results);
  lines.push(`${all.pass} passed, ${all.fail} failed, ${all.skip} skipped`);
  return `${lines.join('\n')}\n`;
}

export function textLine(result: CaseResult): string {
  const mark = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' }[result.outcome];
  return `${mark} ${result.contract} ${result.id}${result.detail ? ` — ${result.detail}` : ''}`;
}

/** JUnit XML: a suite per contract, a test case per example, classnames by operation. */
export function junitReport(results: CaseResult[]): string {
  const suites = (['billing', 'ledger'] as const).map((contract) => {
    const cases = results.filter((r) => r.contract === contract);
    const counts = summary(cases);
    const seconds = (cases.reduce((sum, r) => sum + r.ms, 0) / 1000).toFixed(3);
    const body = cases
      .map((r) => {
        const open = `    <testcase classname="${xml(`${contract}.${r.operation}`)}" name="${xml(r.id)}" time="${(r.ms / 1000).toFixed(3)}"`;
        if (r.outcome === 'pass') return `${open}/>`;
        const inner =
          r.outcome === 'fail'
            ? `<failure message="${xml(r.detail ?? 'failed')}">${xml(r.detail ?? '')}</failure>`
            : `<skipped message="${xml(r.detail ?? 'skipped')}"/>`;
        return `${open}>${inner}</testcase>`;
      })
      .join('\n');
    return `  <testsuite name="${contract}" tests="${cases.length}" failures="${counts.fail}" skipped="${counts.skip}" errors="0" time="${seconds}">\n${body}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="tally-conformance">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** Text made safe for XML attributes and content; characters XML 1.0 cannot hold are dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd]/gu, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
