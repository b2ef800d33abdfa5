import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/conformance/billingExamples.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// In a real browser (headless Chromium; `.ci/run` installs Debian's when it is missing): the API
// reference renders every operation offline, and a page on another origin calls Tally through
// CORS. Without a browser these tests are skipped, and the run says so.

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (candidate) => candidate && fs.existsSync(candidate),
);
if (!CHROMIUM)
  console.warn("browser tests skipped: no Chromium found (set CHROMIUM_PATH, or install Debian's chromium)");

// UPDATE_SCREENSHOTS=1 refreshes the README's screenshots from this run.
const SCREENSHOTS = path.resolve(import.meta.dirname, 'screenshots');

describe.skipIf(!CHROMIUM)('in a browser', () => {
  let server: TestServer;
  let strict: TestServer;
  let workspace: TestWorkspace;
  let browser: Browser;
  let otherOrigin: http.Server;
  let otherUrl: string;

  beforeAll(async () => {
    server = await startTestServer();
    strict = await startTestServer({ corsOrigins: ['https://app.example.com'] });
    workspace = await server.workspace('Browser');
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Root in CI: Chromium's sandbox needs user namespaces the container may not grant.
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    });
    // A page served from another origin (another port), as a frontend in development would be.
    otherOrigin = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>frontend</title>');
    });
    otherOrigin.listen(0, '127.0.0.1');
    await new Promise((resolve) => otherOrigin.once('listening', resolve));
    otherUrl = `http://127.0.0.1:${(otherOrigin.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    otherOrigin?.close();
    await server?.close();
    await strict?.close();
  });

  it('renders the billing API reference at /docs with every operation, from Tally alone', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.baseUrl) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(`${server.baseUrl}/docs`, { waitUntil: 'networkidle0' });
    const summaries = Object.values(
      loadSpec().paths as Record<string, Record<string, { summary?: string; operationId?: string }>>,
    )
      .flatMap((item) => Object.values(item))
      .filter((operation) => operation?.operationId)
      .map((operation) => operation.summary!);
    await page.waitForFunction(
      (first: string) => document.body.innerText.includes(first),
      { timeout: 30_000 },
      summaries[0],
    );
    const text = await page.evaluate(() => document.body.innerText);
    expect(summaries.filter((summary) => !text.includes(summary))).toEqual([]);
    expect(foreign).toEqual([]);
    if (process.env.UPDATE_SCREENSHOTS) {
      fs.mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, 'docs.png') });
    }
    await page.close();
  }, 90_000);

  it('opens GraphiQL from GET /graphql, takes a token in the Headers tab and runs a query, offline', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.baseUrl) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    await page.setViewport({ width: 1400, height: 900 });
    await page.goto(`${server.baseUrl}/graphql`, { waitUntil: 'networkidle0' });
    expect(page.url()).toBe(`${server.baseUrl}/graphiql`);
    await page.waitForSelector('.graphiql-execute-button', { timeout: 30_000 });
    // The query editor holds the welcome query; the Headers editor takes the token.
    await page.evaluate((token: string) => {
      const editors = Array.from<Element & { CodeMirror: { getValue(): string; setValue(v: string): void } }>(
        document.querySelectorAll('.CodeMirror'),
      );
      const headers = editors.find((editor) => editor.CodeMirror.getValue().includes('Authorization'))!;
      headers.CodeMirror.setValue(JSON.stringify({ Authorization: `Bearer ${token}` }));
    }, workspace.token);
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(
      () => (document.querySelector('.result-window')?.textContent ?? '').includes('"workspace"'),
      { timeout: 30_000 },
    );
    const result = await page.evaluate(() => document.querySelector('.result-window')!.textContent);
    expect(result).toContain('Browser');
    // The example operations are open as tabs.
    const tabs = await page.evaluate(() => document.querySelectorAll('.graphiql-tab').length);
    expect(tabs).toBeGreaterThan(20);
    // The docs pane shows the SDL's descriptions (from the introspection served beside the page).
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.waitForFunction(() => document.body.innerText.includes('Root Types'), { timeout: 15_000 });
    expect(foreign).toEqual([]);
    if (process.env.UPDATE_SCREENSHOTS) {
      await page.evaluate(() => {
        const editors = Array.from<Element & { CodeMirror: { getValue(): string; setValue(v: string): void } }>(
          document.querySelectorAll('.CodeMirror'),
        );
        editors
          .find((editor) => editor.CodeMirror.getValue().includes('Authorization'))!
          .CodeMirror.setValue('{"Authorization": "Bearer <your access token>"}');
      });
      await page.screenshot({ path: path.join(SCREENSHOTS, 'graphiql.png') });
    }
    await page.close();
  }, 90_000);

  it('lets a page on another origin call the API with a bearer token, and blocks origins not allowed', async () => {
    const page = await browser.newPage();
    await page.goto(otherUrl);
    const call = (base: string) =>
      page.evaluate(
        async (url: string, token: string) => {
          try {
            const response = await fetch(`${url}/billing/products`, { headers: { authorization: `Bearer ${token}` } });
            return {
              status: response.status,
              requestId: response.headers.get('x-request-id'),
              body: await response.json(),
            };
          } catch (error) {
            return { blocked: String(error) };
          }
        },
        base,
        workspace.token,
      );
    const allowed = (await call(server.baseUrl)) as {
      status: number;
      requestId: string | null;
      body: { data: unknown[] };
    };
    expect(allowed.status).toBe(200);
    expect(allowed.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Array.isArray(allowed.body.data)).toBe(true);
    const blocked = (await call(strict.baseUrl)) as { blocked?: string };
    expect(blocked.blocked).toContain('Failed to fetch');
    await page.close();
  }, 60_000);
});
