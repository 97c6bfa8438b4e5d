import { sendGenerated, unwrapGenerated, type QueryPairs } from '../../api/generated';
import { filenameFromDisposition } from '../../api/client';

export type ExportFormat = 'csv' | 'json';

export interface ExportedFile {
  text: string;
  filename: string;
  type: string;
}

/**
 * Every row matching the query (filters, search, sort; no page) from the
 * streaming export. JSON is the NDJSON export joined into an array as
 * text, so decimals keep their digits and the file imports back as is.
 */
export async function exportRecords(projectId: string, table: string, query: QueryPairs, format: ExportFormat, credential: string): Promise<ExportedFile> {
  const response = await sendGenerated(projectId, {
    method: 'GET',
    path: `/${table}`,
    query: [...query, ['format', format === 'csv' ? 'csv' : 'ndjson']],
    credential,
  });
  if (!response.ok) unwrapGenerated(response); // throws the envelope's error
  const disposition = response.headers.find(([name]) => name.toLowerCase() === 'content-disposition')?.[1] ?? null;
  if (format === 'csv') {
    return { text: response.text, filename: filenameFromDisposition(disposition, `${table}.csv`), type: 'text/csv;charset=utf-8' };
  }
  const lines = response.text.split('\n').filter((line) => line.trim() !== '');
  const name = filenameFromDisposition(disposition, `${table}.ndjson`).replace(/\.ndjson$/, '.json');
  return { text: `[\n${lines.join(',\n')}\n]\n`, filename: name, type: 'application/json' };
}
