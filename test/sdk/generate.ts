import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { print, type DocumentNode } from 'graphql';

// Generates, into .sdk/ (not committed), the clients a client team would build from spec/ with
// tools nobody here wrote: @hey-api/openapi-ts and orval for the billing contract, and
// graphql-codegen's client preset over the official Node SDK 1.4.0's GraphQL documents.

const root = path.resolve(import.meta.dirname, '../..');
const out = path.join(root, '.sdk');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);
const run = (command: string, args: string[], cwd = root) => execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8' });

/** The SDK's documents, one .graphql file per operation, as its generated module holds them. */
function writeSdkDocuments(directory: string): number {
  const require = createRequire(import.meta.url);
  // The package exports only its entry point; its generated module sits beside it.
  const generated = require(path.join(path.dirname(require.resolve('@fragment-dev/node-client')), '../generated/generated.js')) as Record<string, unknown>;
  fs.mkdirSync(directory, { recursive: true });
  const documents = Object.entries(generated).filter(([name]) => name.endsWith('Document'));
  for (const [name, document] of documents) fs.writeFileSync(path.join(directory, `${name}.graphql`), `${print(document as DocumentNode)}\n`);
  return documents.length;
}

export function generateClients(): { sdkDocuments: number } {
  fs.rmSync(out, { recursive: true, force: true });
  run(bin('openapi-ts'), ['-i', './spec/billing.openapi.yaml', '-o', './.sdk/hey-api']);
  run(bin('orval'), ['--config', 'orval.config.ts'], path.join(root, 'test/sdk'));
  const sdkDocuments = writeSdkDocuments(path.join(out, 'graphql/documents'));
  run(bin('graphql-codegen'), ['--config', 'test/sdk/graphql-codegen.yml', '--silent']);
  return { sdkDocuments };
}

/** Type-checks the generated clients and the flows that use them, strictly. */
export function typecheckClients(): string {
  try {
    return run(bin('tsc'), ['--noEmit', '-p', 'test/sdk/tsconfig.json']);
  } catch (error) {
    throw new Error(`tsc failed on the generated clients:\n${(error as { stdout: string }).stdout}`);
  }
}

if (process.argv[1] === import.meta.filename) {
  const { sdkDocuments } = generateClients();
  typecheckClients();
  console.log(`generated .sdk/hey-api, .sdk/orval and .sdk/graphql (${sdkDocuments} SDK documents); all type-check strictly`);
}
