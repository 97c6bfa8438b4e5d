// An id of an existing record per referenced table, so a create example
// points at a row that is there instead of an id that may not exist.
import { sendGenerated } from '../api/generated';

/** The newest record's id of each table, or no entry when it has none or cannot be read. */
export async function existingIds(projectId: string, tables: string[], credential: string | undefined): Promise<Record<string, unknown>> {
  const found = await Promise.all(
    tables.map(async (table) => {
      try {
        const response = await sendGenerated(projectId, {
          method: 'GET',
          path: `/${table}`,
          query: [
            ['limit', '1'],
            ['sort', '-id'],
            ['fields', 'id'],
            ['count', 'none'],
          ],
          credential,
        });
        const first = (response.json as { data?: { id?: unknown }[] } | undefined)?.data?.[0];
        return response.ok && first?.id !== undefined ? ([[table, first.id]] as const) : [];
      } catch {
        return [];
      }
    }),
  );
  return Object.fromEntries(found.flat());
}
