import { useMutation, useQueryClient } from '@tanstack/react-query';
import { sendGenerated, unwrapGenerated } from '../../api/generated';
import { recordKeys } from './keys';
import type { RecordRow } from './records-query';

export interface RecordSaveVariables {
  projectId: string;
  table: string;
  /** Absent to create a record; present to change that record with PATCH. */
  id?: string | number;
  /** The JSON body, or multipart/form-data when files are uploaded (grid/files.ts recordWriteBody). */
  values: Record<string, unknown> | FormData;
  credential: string;
}

export async function saveRecord({ projectId, table, id, values, credential }: RecordSaveVariables): Promise<RecordRow> {
  const path = id === undefined ? `/${table}` : `/${table}/${encodeURIComponent(String(id))}`;
  const response = await sendGenerated(projectId, { method: id === undefined ? 'POST' : 'PATCH', path, body: values, credential });
  return unwrapGenerated<RecordRow>(response).data;
}

export function useRecordSaveMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveRecord,
    onSuccess: (_row, { projectId, table }) => {
      void queryClient.invalidateQueries({ queryKey: recordKeys.table(projectId, table) });
    },
  });
}
