export const memberKeys = {
  all: (projectId: string) => ['members', projectId] as const,
  list: (projectId: string) => [...memberKeys.all(projectId), 'list'] as const,
  invitations: (projectId: string) => [...memberKeys.all(projectId), 'invitations'] as const,
  audit: (projectId: string) => ['audit', projectId] as const,
};
