import { describe, expect, it } from 'vitest';
import { KEY_VARIABLE, snippet, SNIPPET_LANGUAGES, type SnippetRequest } from './snippets';

const base = 'http://localhost:8080/v1/p1';
const getWithQuery: SnippetRequest = {
  method: 'GET',
  url: `${base}/books?filter[title][like]=tea&sort=-created_at`,
  credential: { kind: 'value', value: 'ts_live_abc' },
};
const postWithBody: SnippetRequest = {
  method: 'POST',
  url: `${base}/books`,
  credential: { kind: 'value', value: 'ts_live_abc' },
  body: '{\n  "title": "Tea",\n  "published_year": 1998\n}',
};

describe('code to copy', () => {
  it('writes a GET with a query in each language', () => {
    expect(snippet('curl', getWithQuery)).toBe(
      `curl -g 'http://localhost:8080/v1/p1/books?filter[title][like]=tea&sort=-created_at' \\\n  -H 'Authorization: Bearer ts_live_abc'`,
    );
    expect(snippet('fetch', getWithQuery)).toBe(
      [
        'const apiKey = "ts_live_abc";',
        'const response = await fetch("http://localhost:8080/v1/p1/books?filter[title][like]=tea&sort=-created_at", {',
        "  method: 'GET',",
        '  headers: { Authorization: `Bearer ${apiKey}` },',
        '});',
        'console.log(response.status, await response.json());',
      ].join('\n'),
    );
    expect(snippet('python', getWithQuery)).toBe(
      [
        'import requests\n',
        'api_key = "ts_live_abc"',
        'response = requests.get(',
        '    "http://localhost:8080/v1/p1/books?filter[title][like]=tea&sort=-created_at",',
        '    headers={"Authorization": f"Bearer {api_key}"},',
        ')',
        'print(response.status_code, response.json())',
      ].join('\n'),
    );
    const go = snippet('go', getWithQuery);
    expect(go).toContain('http.NewRequest("GET", "http://localhost:8080/v1/p1/books?filter[title][like]=tea&sort=-created_at", nil)');
    expect(go).toContain('req.Header.Set("Authorization", "Bearer "+"ts_live_abc")');
    expect(go).not.toContain('"strings"'); // no body, so no unused import
    expect(go).not.toContain('Content-Type');
  });

  it('writes a POST with a JSON body in each language', () => {
    expect(snippet('curl', postWithBody)).toBe(
      [
        `curl 'http://localhost:8080/v1/p1/books'`,
        '-X POST',
        `-H 'Authorization: Bearer ts_live_abc'`,
        `-H 'Content-Type: application/json'`,
        `--data '{\n  "title": "Tea",\n  "published_year": 1998\n}'`,
      ].join(' \\\n  '),
    );
    const fetch = snippet('fetch', postWithBody);
    expect(fetch).toContain("method: 'POST'");
    expect(fetch).toContain("headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' }");
    expect(fetch).toContain('body: `{\n  "title": "Tea",\n  "published_year": 1998\n}`');
    const python = snippet('python', postWithBody);
    expect(python).toContain('response = requests.post(');
    expect(python).toContain('data="{\\n  \\"title\\": \\"Tea\\",\\n  \\"published_year\\": 1998\\n}".encode()');
    const go = snippet('go', postWithBody);
    expect(go).toContain('http.NewRequest("POST", "http://localhost:8080/v1/p1/books", strings.NewReader(`{\n  "title": "Tea",\n  "published_year": 1998\n}`))');
    expect(go).toContain('req.Header.Set("Content-Type", "application/json")');
  });

  it('never writes the key in when the credential is the environment variable', () => {
    for (const language of SNIPPET_LANGUAGES) {
      const text = snippet(language, { ...getWithQuery, credential: { kind: 'variable' } });
      expect(text, language).toContain(KEY_VARIABLE);
      expect(text, language).not.toContain('ts_live_abc');
    }
    expect(snippet('curl', { ...getWithQuery, credential: { kind: 'variable' } })).toContain(`-H "Authorization: Bearer $${KEY_VARIABLE}"`);
  });

  it('sends no Authorization header without a credential', () => {
    for (const language of SNIPPET_LANGUAGES) {
      expect(snippet(language, { ...getWithQuery, credential: { kind: 'none' } }), language).not.toContain('Authorization');
    }
  });

  it("quotes a ' and a $ in a body so each language keeps them", () => {
    const body = '{"note": "it\'s $5"}';
    expect(snippet('curl', { ...postWithBody, body })).toContain(`--data '{"note": "it'\\''s $5"}'`);
    expect(snippet('fetch', { ...postWithBody, body })).toContain('body: `{"note": "it\'s $5"}`');
    expect(snippet('fetch', { ...postWithBody, body: '{"a": "${x}"}' })).toContain('body: `{"a": "\\${x}"}`');
    expect(snippet('python', { ...postWithBody, body })).toContain('data="{\\"note\\": \\"it\'s $5\\"}".encode()');
    expect(snippet('go', { ...postWithBody, body })).toContain('strings.NewReader(`{"note": "it\'s $5"}`)');
  });

  it('streams print events as they come', () => {
    const stream: SnippetRequest = { method: 'GET', url: `${base}/realtime?tables=books`, credential: { kind: 'variable' }, stream: true };
    expect(snippet('curl', stream)).toMatch(/^curl -N /);
    expect(snippet('curl', stream)).toContain(`-H 'Accept: text/event-stream'`);
    expect(snippet('fetch', stream)).toContain('TextDecoderStream');
    expect(snippet('python', stream)).toContain('stream=True');
    const go = snippet('go', stream);
    expect(go).toContain('bufio.NewScanner');
    expect(go).not.toContain('"io"');
  });
});

describe('code to copy for a form body', () => {
  const form: SnippetRequest = {
    method: 'POST',
    url: `${base}/books`,
    credential: { kind: 'value', value: 'ts_live_abc' },
    // A JSON body the user wrote before switching is not sent beside the form.
    body: '{"title": "ignored"}',
    form: [
      { name: 'title', value: 'Dune' },
      { name: 'pages', value: '412' },
      { name: 'cover', fileName: 'dune.png' },
      { name: 'scans', fileName: 'p1.pdf' },
      { name: 'scans', fileName: 'p2.pdf' },
    ],
  };

  it('writes curl with -F for fields and files', () => {
    expect(snippet('curl', form)).toBe(
      [
        `curl 'http://localhost:8080/v1/p1/books'`,
        '-X POST',
        `-H 'Authorization: Bearer ts_live_abc'`,
        `-F 'title=Dune'`,
        `-F 'pages=412'`,
        `-F 'cover=@dune.png'`,
        `-F 'scans=@p1.pdf'`,
        `-F 'scans=@p2.pdf'`,
      ].join(' \\\n  '),
    );
  });

  it('keeps a text curl would read as a file or a type, and quotes a file name curl would split', () => {
    const tricky: SnippetRequest = {
      ...form,
      form: [
        { name: 'note', value: "@home, it's $5; really" },
        { name: 'other', value: '<not a file' },
        { name: 'cover', fileName: 'a;b "c".png' },
      ],
    };
    expect(snippet('curl', tricky)).toContain(`--form-string 'note=@home, it'\\''s $5; really'`);
    expect(snippet('curl', tricky)).toContain(`--form-string 'other=<not a file'`);
    expect(snippet('curl', tricky)).toContain(`-F 'cover=@"a;b \\"c\\".png"'`);
  });

  it('writes fetch with FormData, the files read with openAsBlob', () => {
    expect(snippet('fetch', form)).toBe(
      [
        "import { openAsBlob } from 'node:fs';",
        '',
        'const apiKey = "ts_live_abc";',
        'const form = new FormData();',
        'form.append("title", "Dune");',
        'form.append("pages", "412");',
        'form.append("cover", await openAsBlob("dune.png"), "dune.png");',
        'form.append("scans", await openAsBlob("p1.pdf"), "p1.pdf");',
        'form.append("scans", await openAsBlob("p2.pdf"), "p2.pdf");',
        'const response = await fetch("http://localhost:8080/v1/p1/books", {',
        "  method: 'POST',",
        '  headers: { Authorization: `Bearer ${apiKey}` },',
        '  body: form,',
        '});',
        'console.log(response.status, await response.json());',
      ].join('\n'),
    );
    // Without a file there is nothing to import.
    expect(snippet('fetch', { ...form, form: [{ name: 'title', value: 'Dune' }] })).not.toContain('openAsBlob');
  });

  it('writes Python requests with every part in files=', () => {
    expect(snippet('python', form)).toBe(
      [
        'import requests\n',
        'api_key = "ts_live_abc"',
        'response = requests.post(',
        '    "http://localhost:8080/v1/p1/books",',
        '    headers={"Authorization": f"Bearer {api_key}"},',
        '    files=[',
        '        ("title", (None, "Dune")),',
        '        ("pages", (None, "412")),',
        '        ("cover", ("dune.png", open("dune.png", "rb"))),',
        '        ("scans", ("p1.pdf", open("p1.pdf", "rb"))),',
        '        ("scans", ("p2.pdf", open("p2.pdf", "rb"))),',
        '    ],',
        ')',
        'print(response.status_code, response.json())',
      ].join('\n'),
    );
  });

  it('writes Go with mime/multipart', () => {
    const go = snippet('go', form);
    expect(go).toContain('import (\n\t"bytes"\n\t"fmt"\n\t"io"\n\t"mime/multipart"\n\t"net/http"\n\t"os"\n\t"path/filepath"\n)');
    expect(go).toContain('\tform := multipart.NewWriter(&body)\n\t_ = form.WriteField("title", "Dune")\n\t_ = form.WriteField("pages", "412")\n');
    expect(go).toContain('\taddFile(form, "cover", "dune.png")\n\taddFile(form, "scans", "p1.pdf")\n\taddFile(form, "scans", "p2.pdf")\n');
    expect(go).toContain('http.NewRequest("POST", "http://localhost:8080/v1/p1/books", &body)');
    expect(go).toContain('req.Header.Set("Content-Type", form.FormDataContentType())');
    expect(go).toContain('func addFile(form *multipart.Writer, field, path string) {');
    expect(go).not.toContain('"strings"');
    expect(go).not.toContain('ignored');
    // Without a file: no helper, no file imports.
    const fieldsOnly = snippet('go', { ...form, form: [{ name: 'title', value: 'Dune' }] });
    expect(fieldsOnly).not.toContain('addFile');
    expect(fieldsOnly).not.toContain('"os"');
    expect(fieldsOnly).not.toContain('"path/filepath"');
  });

  it('never writes the key in when the credential is the environment variable', () => {
    for (const language of SNIPPET_LANGUAGES) {
      const text = snippet(language, { ...form, credential: { kind: 'variable' } });
      expect(text, language).toContain(KEY_VARIABLE);
      expect(text, language).not.toContain('ts_live_abc');
    }
  });
});
