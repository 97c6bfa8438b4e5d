import { useMutation, useQueryClient } from '@tanstack/react-query';
import { sendGenerated, unwrapGenerated } from '../../api/generated';
import { recordKeys } from './keys';
import type { RecordRow } from './records-query';

export interface RecordsBulkCreateVariables {
  projectId: string;
  table: string;
  records: Record<string, unknown>[];
  credential: string;
}

/** Creates every record or none (POST of an array); a refusal names `<position>.<field>`. */
export async function createRecords({ projectId, table, records, credential }: RecordsBulkCreateVariables): Promise<RecordRow[]> {
  const response = await sendGenerated(projectId, { method: 'POST', path: `/${table}`, body: records, credential });
  return unwrapGenerated<RecordRow[]>(response).data;
}

export function useRecordsBulkCreateMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createRecords,
    onSuccess: (_rows, { projectId, table }) => {
      void queryClient.invalidateQueries({ queryKey: recordKeys.table(projectId, table) });
    },
  });
}
