// "Copy as curl" for the Test console.

export interface CurlInput {
  method: string;
  url: string;
  credential?: string;
  body?: string;
  /** A Server-Sent Events stream: curl must not buffer (-N) and asks for text/event-stream. */
  stream?: boolean;
}

/** Quotes a value for a POSIX shell: single quotes, with ' written as '\''. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand({ method, url, credential, body, stream }: CurlInput): string {
  const parts = stream ? ['curl', '-N'] : ['curl'];
  if (method.toUpperCase() !== 'GET') parts.push('-X', method.toUpperCase());
  parts.push(shellQuote(url));
  if (credential) parts.push('-H', shellQuote(`Authorization: Bearer ${credential}`));
  if (stream) parts.push('-H', shellQuote('Accept: text/event-stream'));
  if (body && body.trim() !== '') {
    parts.push('-H', shellQuote('Content-Type: application/json'));
    parts.push('--data', shellQuote(body));
  }
  return parts.join(' ');
}
