import { useMutation } from '@tanstack/react-query';
import { apiRequest, isApiError } from '../../api/client';
import type { SchemaDocument } from '../../schema/document';
import { schemaPath } from './paths';

export interface SchemaValidateVariables {
  projectId: string;
  document: SchemaDocument;
}

/** The server's verdict: an empty map when valid, else problems keyed by path. */
export async function validateSchemaOnServer({ projectId, document }: SchemaValidateVariables): Promise<Record<string, string>> {
  try {
    await apiRequest(schemaPath(projectId, '/validate'), { method: 'POST', body: document });
    return {};
  } catch (error) {
    if (isApiError(error, 'VALIDATION_ERROR')) {
      return Object.keys(error.details).length ? error.details : { tables: error.message };
    }
    throw error;
  }
}

export function useSchemaValidateMutation() {
  return useMutation({ mutationFn: validateSchemaOnServer });
}
