export const providerKeys = {
  all: (projectId: string) => ['auth-providers', projectId] as const,
  list: (projectId: string) => [...providerKeys.all(projectId), 'list'] as const,
};
