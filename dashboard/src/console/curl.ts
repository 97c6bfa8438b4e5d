// Shell quoting for the curl snippets (snippets.ts).

/** Quotes a value for a POSIX shell: single quotes, with ' written as '\''. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
