// Code to copy: one request of the generated API written as curl, fetch
// (JavaScript), Python requests and Go net/http. Every value the user typed
// (URL, body, a key) is quoted for the language it lands in, so a ' or a $
// in a JSON body reaches the server as typed. A form body (docs/files.md)
// is multipart/form-data: its files are read from the file names chosen,
// as paths relative to where the code runs.
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

/** A part of a multipart/form-data body: a field's text, or a file read from the path fileName. */
export type FormPart = { name: string; value: string } | { name: string; fileName: string };

export interface SnippetRequest {
  method: string;
  /** The absolute URL, query included. */
  url: string;
  credential: SnippetCredential;
  /** The JSON body as text; empty or absent: none. */
  body?: string;
  /** A multipart/form-data body instead of the JSON one. */
  form?: FormPart[];
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
  return request.form === undefined && request.body !== undefined && request.body.trim() !== '';
}

function hasForm(request: SnippetRequest): request is SnippetRequest & { form: FormPart[] } {
  return request.form !== undefined;
}

function isFilePart(part: FormPart): part is { name: string; fileName: string } {
  return 'fileName' in part;
}

/** The files of a form body, to read before the request. */
function formFiles(request: SnippetRequest): { name: string; fileName: string }[] {
  return (request.form ?? []).filter(isFilePart);
}

/**
 * A part as curl's -F takes it: `name=@path` for a file (the path in double
 * quotes when it holds a ; , " or \, which curl reads as its own), and
 * --form-string for a text curl would read as a file (a leading @ or <)
 * or as a part's type (;type=).
 */
function curlPart(part: FormPart): string {
  if (isFilePart(part)) {
    const path = /[;,"\\]/.test(part.fileName) ? `"${part.fileName.replace(/["\\]/g, '\\$&')}"` : part.fileName;
    return `-F ${shellQuote(`${part.name}=@${path}`)}`;
  }
  const literal = /^[@<]/.test(part.value) || part.value.includes(';');
  return `${literal ? '--form-string' : '-F'} ${shellQuote(`${part.name}=${part.value}`)}`;
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
  // -F makes the body multipart/form-data, its boundary in the Content-Type.
  if (hasForm(request)) lines.push(...request.form.map(curlPart));
  return lines.join(' \\\n  ');
}

/** A JavaScript template literal holding text exactly: \, ` and ${ escaped. */
function jsTemplate(text: string): string {
  return '`' + text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';
}

function fetchSnippet(request: SnippetRequest): string {
  const method = request.method.toUpperCase();
  const lines: string[] = [];
  // Node reads a file as a Blob; in a browser, a file input's files are Blobs already.
  if (formFiles(request).length > 0) lines.push(`import { openAsBlob } from 'node:fs';`, '');
  if (request.credential.kind === 'value') lines.push(`const apiKey = ${JSON.stringify(request.credential.value)};`);
  if (request.credential.kind === 'variable') lines.push(`const apiKey = process.env.${KEY_VARIABLE}; // your API key`);
  const headers: string[] = [];
  if (request.credential.kind !== 'none') headers.push('Authorization: `Bearer ${apiKey}`');
  if (request.stream) headers.push(`Accept: 'text/event-stream'`);
  if (hasBody(request)) headers.push(`'Content-Type': 'application/json'`);
  const options = [`method: '${method}'`];
  if (headers.length) options.push(`headers: { ${headers.join(', ')} }`);
  if (hasBody(request)) options.push(`body: ${jsTemplate(request.body)}`);
  if (hasForm(request)) {
    lines.push('const form = new FormData();');
    for (const part of request.form) {
      const name = JSON.stringify(part.name);
      if (isFilePart(part)) lines.push(`form.append(${name}, await openAsBlob(${JSON.stringify(part.fileName)}), ${JSON.stringify(baseName(part.fileName))});`);
      else lines.push(`form.append(${name}, ${JSON.stringify(part.value)});`);
    }
    // No Content-Type: fetch writes it, with the parts' boundary.
    options.push('body: form');
  }
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
  if (hasForm(request)) {
    // Every part in files=, so the body is multipart/form-data even
    // without a file: (None, text) is a field, (name, file) a file.
    const parts = request.form.map((part) =>
      isFilePart(part)
        ? `(${pyString(part.name)}, (${pyString(baseName(part.fileName))}, open(${pyString(part.fileName)}, "rb")))`
        : `(${pyString(part.name)}, (None, ${pyString(part.value)}))`,
    );
    args.push(parts.length ? `files=[\n${parts.map((p) => `        ${p},`).join('\n')}\n    ]` : 'files=[]');
  }
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
  const files = formFiles(request);
  const imports = ['"fmt"', '"net/http"', request.stream ? '"bufio"' : '"io"'];
  if (request.credential.kind === 'variable' || files.length > 0) imports.push('"os"');
  if (hasBody(request)) imports.push('"strings"');
  if (hasForm(request)) imports.push('"bytes"', '"mime/multipart"');
  if (files.length > 0) imports.push('"path/filepath"');
  imports.sort();
  const lines = ['package main', '', 'import (', ...imports.map((i) => `\t${i}`), ')', '', 'func main() {'];
  let body = hasBody(request) ? `strings.NewReader(${goString(request.body)})` : 'nil';
  if (hasForm(request)) {
    lines.push('\tvar body bytes.Buffer', '\tform := multipart.NewWriter(&body)');
    for (const part of request.form) {
      if (isFilePart(part)) lines.push(`\taddFile(form, ${JSON.stringify(part.name)}, ${JSON.stringify(part.fileName)})`);
      // Writing to memory does not fail.
      else lines.push(`\t_ = form.WriteField(${JSON.stringify(part.name)}, ${JSON.stringify(part.value)})`);
    }
    lines.push('\tif err := form.Close(); err != nil {', '\t\tpanic(err)', '\t}');
    body = '&body';
  }
  lines.push(`\treq, err := http.NewRequest(${JSON.stringify(method)}, ${JSON.stringify(request.url)}, ${body})`);
  lines.push('\tif err != nil {', '\t\tpanic(err)', '\t}');
  if (request.credential.kind === 'value') lines.push(`\treq.Header.Set("Authorization", "Bearer "+${JSON.stringify(request.credential.value)})`);
  if (request.credential.kind === 'variable') lines.push(`\treq.Header.Set("Authorization", "Bearer "+os.Getenv(${JSON.stringify(KEY_VARIABLE)})) // your API key`);
  if (request.stream) lines.push('\treq.Header.Set("Accept", "text/event-stream")');
  if (hasBody(request)) lines.push('\treq.Header.Set("Content-Type", "application/json")');
  if (hasForm(request)) lines.push('\treq.Header.Set("Content-Type", form.FormDataContentType())');
  lines.push('\tresp, err := http.DefaultClient.Do(req)', '\tif err != nil {', '\t\tpanic(err)', '\t}', '\tdefer resp.Body.Close()');
  if (request.stream) {
    lines.push('\tlines := bufio.NewScanner(resp.Body)', '\tfor lines.Scan() {', '\t\tfmt.Println(lines.Text())', '\t}');
  } else {
    lines.push('\tanswer, err := io.ReadAll(resp.Body)', '\tif err != nil {', '\t\tpanic(err)', '\t}', '\tfmt.Println(resp.Status, string(answer))');
  }
  lines.push('}');
  if (files.length > 0) {
    lines.push(
      '',
      '// addFile writes the file at path as a part named field.',
      'func addFile(form *multipart.Writer, field, path string) {',
      '\tfile, err := os.Open(path)',
      '\tif err != nil {',
      '\t\tpanic(err)',
      '\t}',
      '\tdefer file.Close()',
      '\tpart, err := form.CreateFormFile(field, filepath.Base(path))',
      '\tif err != nil {',
      '\t\tpanic(err)',
      '\t}',
      '\tif _, err := io.Copy(part, file); err != nil {',
      '\t\tpanic(err)',
      '\t}',
      '}',
    );
  }
  lines.push(''); // gofmt ends a file with a newline
  return lines.join('\n');
}

/** The last segment of a path: the file name a part is sent with. */
function baseName(path: string): string {
  return path.split(/[/\\]/).pop() || path;
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
