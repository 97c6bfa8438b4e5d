import { Alert, Anchor, Badge, Group, Table, Text } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { GenerateResult } from '../../../api/types';
import { MethodBadge } from '../../../components/MethodBadge';

/** After a generate: the new version and its endpoints, linked into Docs and Test. */
export function GenerateResultPanel({ result, projectId }: { result: GenerateResult; projectId: string }) {
  return (
    <Alert color="teal" variant="light" icon={<IconCircleCheck aria-hidden />} title={`Version ${result.version} is live`} role="status">
      <Text size="sm" mb="sm">
        {result.applied?.length ?? 0} {result.applied?.length === 1 ? 'change was' : 'changes were'} applied.{' '}
        <Anchor component={Link} to={`/projects/${projectId}/docs`}>
          Open the API docs
        </Anchor>{' '}
        or{' '}
        <Anchor component={Link} to={`/projects/${projectId}/settings`}>
          create an API key
        </Anchor>{' '}
        to call it.
      </Text>
      <Table.ScrollContainer minWidth={420}>
        <Table verticalSpacing={4} aria-label="Endpoints">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Method</Table.Th>
              <Table.Th>Path</Table.Th>
              <Table.Th>Try it</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {result.endpoints.map((endpoint) => (
              <Table.Tr key={`${endpoint.method} ${endpoint.path}`}>
                <Table.Td>
                  <MethodBadge method={endpoint.method} />
                </Table.Td>
                <Table.Td className="mono">{endpoint.path}</Table.Td>
                <Table.Td>
                  <Group gap="xs">
                    <Anchor
                      component={Link}
                      size="sm"
                      to={`/projects/${projectId}/test?op=${encodeURIComponent(`${endpoint.method.toUpperCase()} ${relativePath(endpoint.path, projectId)}`)}`}
                    >
                      Test
                    </Anchor>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {result.endpoints.length === 0 && <Badge color="gray.8">No endpoints</Badge>}
    </Alert>
  );
}

/** Endpoint paths may be full (`/v1/<id>/users`) or relative (`/users`). */
export function relativePath(path: string, projectId: string): string {
  const prefix = `/v1/${projectId}`;
  return path.startsWith(prefix) ? path.slice(prefix.length) || '/' : path;
}
