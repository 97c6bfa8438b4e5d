export const webhookKeys = {
  all: (projectId: string) => ['webhooks', projectId] as const,
  list: (projectId: string) => [...webhookKeys.all(projectId), 'list'] as const,
  deliveries: (projectId: string, webhookId: string) => [...webhookKeys.all(projectId), 'deliveries', webhookId] as const,
};
