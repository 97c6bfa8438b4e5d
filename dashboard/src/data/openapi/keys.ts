export const openapiKeys = {
  all: (projectId: string) => ['openapi', projectId] as const,
  document: (projectId: string) => [...openapiKeys.all(projectId), 'document'] as const,
};
