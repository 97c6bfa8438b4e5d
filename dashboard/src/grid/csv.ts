// RFC 4180 CSV read for the Data page's import: quoted fields may hold
// commas, doubled quotes and line breaks; CRLF or LF ends a record; a
// leading byte-order mark (Excel's UTF-8 export) is dropped.

export class CsvError extends Error {}

/** The records of a CSV text, each a list of fields; blank lines are skipped. */
export function parseCsv(text: string): string[][] {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let fieldStarted = false;
  const endRecord = () => {
    record.push(field);
    // A blank line is one empty field: not a record.
    if (!(record.length === 1 && record[0] === '' && !fieldStarted)) records.push(record);
    record = [];
    field = '';
    fieldStarted = false;
  };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (quoted) {
      if (ch === '"') {
        if (source[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"') {
      if (field !== '') throw new CsvError(`line ${line}: a quote inside an unquoted field (quote the whole field and double the quote)`);
      quoted = true;
      fieldStarted = true;
    } else if (ch === ',') {
      record.push(field);
      field = '';
      fieldStarted = true;
    } else if (ch === '\r' && source[i + 1] === '\n') {
      // CRLF: the \n ends the record.
    } else if (ch === '\n' || ch === '\r') {
      endRecord();
      line++;
    } else {
      field += ch;
    }
  }
  if (quoted) throw new CsvError(`line ${line}: a quoted field is not closed`);
  if (field !== '' || record.length > 0 || fieldStarted) endRecord();
  return records;
}
