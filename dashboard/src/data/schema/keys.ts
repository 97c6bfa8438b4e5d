export const schemaKeys = {
  all: (projectId: string) => ['schema', projectId] as const,
  draft: (projectId: string) => [...schemaKeys.all(projectId), 'draft'] as const,
  plan: (projectId: string) => [...schemaKeys.all(projectId), 'plan'] as const,
  /** The plan with its prechecks run (?check=true): under plan, so invalidating the plan refreshes it too. */
  planChecked: (projectId: string) => [...schemaKeys.plan(projectId), 'checked'] as const,
  versions: (projectId: string) => [...schemaKeys.all(projectId), 'versions'] as const,
  version: (projectId: string, version: number) => [...schemaKeys.versions(projectId), version] as const,
  published: (projectId: string) => [...schemaKeys.all(projectId), 'published'] as const,
};
