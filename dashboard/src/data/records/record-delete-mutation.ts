import { useMutation, useQueryClient } from '@tanstack/react-query';
import { sendGenerated, unwrapGenerated } from '../../api/generated';
import { recordKeys } from './keys';

export interface RecordDeleteVariables {
  projectId: string;
  table: string;
  id: string | number;
  credential: string;
}

export async function deleteRecord({ projectId, table, id, credential }: RecordDeleteVariables): Promise<unknown> {
  const response = await sendGenerated(projectId, {
    method: 'DELETE',
    path: `/${table}/${encodeURIComponent(String(id))}`,
    credential,
  });
  return unwrapGenerated(response).data;
}

export function useRecordDeleteMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteRecord,
    onSuccess: (_data, { projectId, table }) => {
      void queryClient.invalidateQueries({ queryKey: recordKeys.table(projectId, table) });
    },
  });
}
