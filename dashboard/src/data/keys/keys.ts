export const apiKeyKeys = {
  all: (projectId: string) => ['api-keys', projectId] as const,
  list: (projectId: string) => [...apiKeyKeys.all(projectId), 'list'] as const,
};
