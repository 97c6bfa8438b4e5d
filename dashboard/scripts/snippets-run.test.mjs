// Runs the code to copy (src/console/snippets.ts) in the real interpreters
// with the network stubbed out: bash with a curl that prints its
// arguments, JavaScript with a fetch that records its call, python3 with a
// requests module that prints what it got, and gofmt on the Go program.
// A body holding every character that ends or opens something in one of
// the languages must reach each as typed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY_VARIABLE, snippet } from '../src/console/snippets';

const url = 'http://localhost:8080/v1/p1/books';
const hostileBody = '{"note": "it\'s $HOME and ${x} `tick` \\\\ \\"quoted\\" done"}';
const post = { method: 'POST', url, credential: { kind: 'value', value: 'ts_live_abc' }, body: hostileBody };
const printingCurl = `curl() { printf '%s\\n' "$@"; }\n`;

describe('code to copy, run', () => {
  it("curl's body reaches the program as typed, ' and $ included", () => {
    const printed = execFileSync('bash', ['-c', printingCurl + snippet('curl', post)], { encoding: 'utf8', env: { HOME: '/home/nobody', PATH: process.env.PATH } });
    const args = printed.split('\n');
    expect(args[args.indexOf('--data') + 1]).toBe(hostileBody);
    expect(args).toContain('Authorization: Bearer ts_live_abc');
  });

  it("curl puts the variable's value in", () => {
    const text = snippet('curl', { method: 'GET', url, credential: { kind: 'variable' } });
    const printed = execFileSync('bash', ['-c', printingCurl + text], { encoding: 'utf8', env: { PATH: process.env.PATH, [KEY_VARIABLE]: 'ts_from_env' } });
    expect(printed.split('\n')).toContain('Authorization: Bearer ts_from_env');
  });

  it("fetch's body reaches fetch as typed", async () => {
    const calls = [];
    const fakeFetch = (to, init) => {
      calls.push({ to, init });
      return Promise.resolve({ status: 201, json: () => Promise.resolve({}) });
    };
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    const text = snippet('fetch', { ...post, credential: { kind: 'variable' } });
    await new AsyncFunction('fetch', 'process', 'console', text)(fakeFetch, { env: { [KEY_VARIABLE]: 'ts_from_env' } }, { log: () => {} });
    expect(calls).toHaveLength(1);
    expect(calls[0].to).toBe(url);
    expect(calls[0].init.method).toBe('POST');
    expect(calls[0].init.body).toBe(hostileBody);
    expect(calls[0].init.headers.Authorization).toBe('Bearer ts_from_env');
  });

  it("Python's body reaches requests as typed", () => {
    const dir = mkdtempSync(join(tmpdir(), 'snippet-'));
    writeFileSync(
      join(dir, 'requests.py'),
      'import json\n\nclass _Answer:\n    status_code = 201\n    def json(self):\n        return {}\n\n' +
        'def post(url, headers=None, data=None):\n    print(json.dumps({"url": url, "headers": headers, "data": data.decode()}))\n    return _Answer()\n',
    );
    const out = execFileSync('python3', ['-c', snippet('python', post)], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: dir } });
    const sent = JSON.parse(out.split('\n')[0]);
    expect(sent.url).toBe(url);
    expect(sent.data).toBe(hostileBody);
    expect(sent.headers.Authorization).toBe('Bearer ts_live_abc');
  });

  it("Go's body is a literal of the text as typed, and the program is gofmt's", () => {
    const text = snippet('go', post);
    // The backtick rules out a raw string: the literal is an interpreted one.
    const literal = /strings\.NewReader\((".*")\)\)/.exec(text)?.[1];
    expect(literal).toBeDefined();
    expect(JSON.parse(literal)).toBe(hostileBody);
    const dir = mkdtempSync(join(tmpdir(), 'snippet-'));
    writeFileSync(join(dir, 'main.go'), text);
    // gofmt -l names a file that is not formatted; one that does not parse is an error.
    expect(execFileSync('gofmt', ['-l', join(dir, 'main.go')], { encoding: 'utf8' })).toBe('');
  });
});
