import { useMutation } from '@tanstack/react-query';
import { apiDownload, type DownloadedFile } from '../../api/client';
import { exportFileName } from '../../evolution/history';
import { saveFile } from '../../lib/saveFile';
import { schemaPath } from './paths';

export interface SchemaDownloadVariables {
  projectId: string;
  /** A published version; without it, the draft. */
  version?: number;
}

/** GET /schema/export: the draft (or a version) as the schema.json file the server names. */
export function downloadSchema({ projectId, version }: SchemaDownloadVariables): Promise<DownloadedFile> {
  const query = version ? `?version=${encodeURIComponent(String(version))}` : '';
  return apiDownload(schemaPath(projectId, `/export${query}`), exportFileName(projectId, version));
}

/** Downloads the file and hands it to the browser to save. */
export function useSchemaDownloadMutation() {
  return useMutation({
    mutationFn: downloadSchema,
    onSuccess: (file) => saveFile(file.blob, file.filename),
  });
}
