// "Copy as curl" for the Test console.

export interface CurlInput {
  method: string;
  url: string;
  credential?: string;
  body?: string;
}

/** Quotes a value for a POSIX shell: single quotes, with ' written as '\''. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand({ method, url, credential, body }: CurlInput): string {
  const parts = ['curl'];
  if (method.toUpperCase() !== 'GET') parts.push('-X', method.toUpperCase());
  parts.push(shellQuote(url));
  if (credential) parts.push('-H', shellQuote(`Authorization: Bearer ${credential}`));
  if (body && body.trim() !== '') {
    parts.push('-H', shellQuote('Content-Type: application/json'));
    parts.push('--data', shellQuote(body));
  }
  return parts.join(' ');
}
