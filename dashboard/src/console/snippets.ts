// Code to copy: one request of the generated API written as curl, fetch
// (JavaScript), Python requests and Go net/http. Every value the user typed
// (URL, body, a key) is quoted for the language it lands in, so a ' or a $
// in a JSON body reaches the server as typed.
import { shellQuote } from './curl';

export const SNIPPET_LANGUAGES = ['curl', 'fetch', 'python', 'go'] as const;
export type SnippetLanguage = (typeof SNIPPET_LANGUAGES)[number];

export const SNIPPET_LABELS: Record<SnippetLanguage, string> = {
  curl: 'curl',
  fetch: 'JavaScript (fetch)',
  python: 'Python (requests)',
  go: 'Go (net/http)',
};

/** The environment variable a snippet reads the key from when it holds no key itself. */
export const KEY_VARIABLE = 'TABLESMITH_KEY';

/**
 * The credential a snippet sends: a key's value written into it, the
 * environment variable KEY_VARIABLE (the dashboard session is never
 * written into code: it is the owner's login, not an API key), or none.
 */
export type SnippetCredential = { kind: 'value'; value: string } | { kind: 'variable' } | { kind: 'none' };

export interface SnippetRequest {
  method: string;
  /** The absolute URL, query included. */
  url: string;
  credential: SnippetCredential;
  /** The JSON body as text; empty or absent: none. */
  body?: string;
  /** A Server-Sent Events stream: the snippet prints events as they come. */
  stream?: boolean;
}

export function snippet(language: SnippetLanguage, request: SnippetRequest): string {
  switch (language) {
    case 'curl':
      return curlSnippet(request);
    case 'fetch':
      return fetchSnippet(request);
    case 'python':
      return pythonSnippet(request);
    case 'go':
      return goSnippet(request);
  }
}

function hasBody(request: SnippetRequest): request is SnippetRequest & { body: string } {
  return request.body !== undefined && request.body.trim() !== '';
}

function curlSnippet(request: SnippetRequest): string {
  const method = request.method.toUpperCase();
  // -g: curl would read filter[col] and {..} in the URL as its own globbing.
  const flags = [request.stream ? '-N' : '', /[[\]{}]/.test(request.url) ? '-g' : ''].filter(Boolean);
  const lines = [['curl', ...flags, shellQuote(request.url)].join(' ')];
  if (method !== 'GET') lines.push(`-X ${method}`);
  if (request.credential.kind === 'value') lines.push(`-H ${shellQuote(`Authorization: Bearer ${request.credential.value}`)}`);
  // Double quotes so the shell puts the variable's value in.
  if (request.credential.kind === 'variable') lines.push(`-H "Authorization: Bearer $${KEY_VARIABLE}"`);
  if (request.stream) lines.push(`-H 'Accept: text/event-stream'`);
  if (hasBody(request)) lines.push(`-H 'Content-Type: application/json'`, `--data ${shellQuote(request.body)}`);
  return lines.join(' \\\n  ');
}

/** A JavaScript template literal holding text exactly: \, ` and ${ escaped. */
function jsTemplate(text: string): string {
  return '`' + text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';
}

function fetchSnippet(request: SnippetRequest): string {
  const method = request.method.toUpperCase();
  const lines: string[] = [];
  if (request.credential.kind === 'value') lines.push(`const apiKey = ${JSON.stringify(request.credential.value)};`);
  if (request.credential.kind === 'variable') lines.push(`const apiKey = process.env.${KEY_VARIABLE}; // your API key`);
  const headers: string[] = [];
  if (request.credential.kind !== 'none') headers.push('Authorization: `Bearer ${apiKey}`');
  if (request.stream) headers.push(`Accept: 'text/event-stream'`);
  if (hasBody(request)) headers.push(`'Content-Type': 'application/json'`);
  const options = [`method: '${method}'`];
  if (headers.length) options.push(`headers: { ${headers.join(', ')} }`);
  if (hasBody(request)) options.push(`body: ${jsTemplate(request.body)}`);
  lines.push(`const response = await fetch(${JSON.stringify(request.url)}, {`, ...options.map((o) => `  ${o},`), '});');
  if (request.stream) {
    lines.push('for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {', '  console.log(chunk);', '}');
  } else {
    lines.push('console.log(response.status, await response.json());');
  }
  return lines.join('\n');
}

/** A Python string literal: JSON's escapes are Python's too. */
function pyString(text: string): string {
  return JSON.stringify(text);
}

function pythonSnippet(request: SnippetRequest): string {
  const method = request.method.toLowerCase();
  const lines: string[] = [];
  lines.push(request.credential.kind === 'variable' ? 'import os\n\nimport requests\n' : 'import requests\n');
  if (request.credential.kind === 'value') lines.push(`api_key = ${pyString(request.credential.value)}`);
  if (request.credential.kind === 'variable') lines.push(`api_key = os.environ[${pyString(KEY_VARIABLE)}]  # your API key`);
  const headers: string[] = [];
  if (request.credential.kind !== 'none') headers.push(`"Authorization": f"Bearer {api_key}"`);
  if (request.stream) headers.push(`"Accept": "text/event-stream"`);
  if (hasBody(request)) headers.push(`"Content-Type": "application/json"`);
  const args = [pyString(request.url)];
  if (headers.length) args.push(`headers={${headers.join(', ')}}`);
  // The body goes as the text written, so numbers keep every digit.
  if (hasBody(request)) args.push(`data=${pyString(request.body)}.encode()`);
  if (request.stream) {
    args.push('stream=True');
    lines.push(`with requests.${method}(`, ...args.map((a) => `    ${a},`), ') as response:');
    lines.push('    for line in response.iter_lines(decode_unicode=True):', '        print(line)');
  } else {
    lines.push(`response = requests.${method}(`, ...args.map((a) => `    ${a},`), ')');
    lines.push('print(response.status_code, response.json())');
  }
  return lines.join('\n');
}

/** A Go string literal: raw when it can be (readable JSON), else quoted. */
function goString(text: string): string {
  if (!text.includes('`') && !text.includes('\r')) return '`' + text + '`';
  return JSON.stringify(text);
}

function goSnippet(request: SnippetRequest): string {
  const method = request.method.toUpperCase();
  const imports = ['"fmt"', '"net/http"', request.stream ? '"bufio"' : '"io"'];
  if (request.credential.kind === 'variable') imports.push('"os"');
  if (hasBody(request)) imports.push('"strings"');
  imports.sort();
  const lines = ['package main', '', 'import (', ...imports.map((i) => `\t${i}`), ')', '', 'func main() {'];
  const body = hasBody(request) ? `strings.NewReader(${goString(request.body)})` : 'nil';
  lines.push(`\treq, err := http.NewRequest(${JSON.stringify(method)}, ${JSON.stringify(request.url)}, ${body})`);
  lines.push('\tif err != nil {', '\t\tpanic(err)', '\t}');
  if (request.credential.kind === 'value') lines.push(`\treq.Header.Set("Authorization", "Bearer "+${JSON.stringify(request.credential.value)})`);
  if (request.credential.kind === 'variable') lines.push(`\treq.Header.Set("Authorization", "Bearer "+os.Getenv(${JSON.stringify(KEY_VARIABLE)})) // your API key`);
  if (request.stream) lines.push('\treq.Header.Set("Accept", "text/event-stream")');
  if (hasBody(request)) lines.push('\treq.Header.Set("Content-Type", "application/json")');
  lines.push('\tresp, err := http.DefaultClient.Do(req)', '\tif err != nil {', '\t\tpanic(err)', '\t}', '\tdefer resp.Body.Close()');
  if (request.stream) {
    lines.push('\tlines := bufio.NewScanner(resp.Body)', '\tfor lines.Scan() {', '\t\tfmt.Println(lines.Text())', '\t}');
  } else {
    lines.push('\tanswer, err := io.ReadAll(resp.Body)', '\tif err != nil {', '\t\tpanic(err)', '\t}', '\tfmt.Println(resp.Status, string(answer))');
  }
  lines.push('}', ''); // gofmt ends a file with a newline
  return lines.join('\n');
}

/**
 * The snippet credential for what the user chose: a typed bearer token
 * or an API key is written in; the dashboard session becomes the
 * environment variable; nothing chosen sends none.
 */
export function snippetCredential(chosen: { secret: string; isSession: boolean } | undefined, typedToken = ''): SnippetCredential {
  if (typedToken.trim()) return { kind: 'value', value: typedToken.trim() };
  if (!chosen) return { kind: 'none' };
  return chosen.isSession ? { kind: 'variable' } : { kind: 'value', value: chosen.secret };
}
