import { useMutation, useQueryClient } from '@tanstack/react-query';
import { sendGenerated, unwrapGenerated } from '../../api/generated';
import { recordKeys } from './keys';

export interface RecordsBulkDeleteVariables {
  projectId: string;
  table: string;
  ids: (string | number)[];
  credential: string;
}

/**
 * Deletes the selected records in one request: a delete by filter on their
 * ids, bounded by max_affected so it can never take more than was chosen.
 */
export async function deleteRecords({ projectId, table, ids, credential }: RecordsBulkDeleteVariables): Promise<number> {
  const response = await sendGenerated(projectId, {
    method: 'DELETE',
    path: `/${table}`,
    query: [
      ['filter[id][in]', ids.map(String).join(',')],
      ['max_affected', String(ids.length)],
    ],
    credential,
  });
  return unwrapGenerated<{ affected: number }>(response).data.affected;
}

export function useRecordsBulkDeleteMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteRecords,
    onSettled: (_data, _error, { projectId }) => {
      // Cascades reach other tables: refresh every list of the project.
      void queryClient.invalidateQueries({ queryKey: recordKeys.all(projectId) });
    },
  });
}
