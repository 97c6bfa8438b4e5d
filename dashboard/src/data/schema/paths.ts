export function schemaPath(projectId: string, rest = ''): string {
  return `/api/projects/${encodeURIComponent(projectId)}/schema${rest}`;
}
