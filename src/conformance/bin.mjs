#!/usr/bin/env node
// `tally-conformance` (package.json bin): the conformance suite's CLI, run through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./cli.ts');
