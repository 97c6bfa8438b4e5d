import { Alert, Anchor, Badge, Group, List, Stack, Table, Text } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { GenerateResult } from '../../../api/types';
import { CopyValue } from '../../../components/CopyValue';
import { MethodBadge } from '../../../components/MethodBadge';
import { endpointPurpose } from '../../../console/endpoints';
import { failedSteps } from '../../../evolution/plan';
import { tones } from '../../../tones';
import { IndexBuildsPanel } from './IndexBuildsPanel';

/** After a generate: the new version and its endpoints, linked into Docs and Test, and how the work after the commit went. */
export function GenerateResultPanel({ result, projectId }: { result: GenerateResult; projectId: string }) {
  const after = result.after_commit ?? [];
  const failed = failedSteps(after);
  const baseUrl = `${window.location.origin}/v1/${projectId}`;
  return (
    <Stack gap="sm">
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
        {(result.notes?.length ?? 0) > 0 && (
          <List size="sm" mb="sm">
            {result.notes!.map((note) => (
              <List.Item key={note}>Note: {note}</List.Item>
            ))}
          </List>
        )}
        <Group gap="lg" mb="xs" data-testid="api-coordinates">
          <Text size="sm" component="div">
            Base URL <CopyValue value={baseUrl} what="base URL" />
          </Text>
          <Text size="sm" component="div">
            Project id <CopyValue value={projectId} what="project id" />
          </Text>
        </Group>
        <Table.ScrollContainer minWidth={560}>
          <Table verticalSpacing={4} aria-label={`Endpoints (${result.endpoints.length})`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Method</Table.Th>
                <Table.Th>Path</Table.Th>
                <Table.Th>What it does</Table.Th>
                <Table.Th>Try it</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {result.endpoints.map((endpoint) => {
                const relative = relativePath(endpoint.path, projectId);
                const testable = relative !== '/docs' && relative !== '/openapi.json';
                return (
                  <Table.Tr key={`${endpoint.method} ${endpoint.path}`}>
                    <Table.Td>
                      <MethodBadge method={endpoint.method} />
                    </Table.Td>
                    <Table.Td>
                      <CopyValue value={`${window.location.origin}${endpoint.path}`} what={`URL of ${endpoint.method} ${relative}`}>
                        <Text span className="mono" size="sm">
                          {relative}
                        </Text>
                      </CopyValue>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{endpointPurpose(endpoint.method, relative)}</Text>
                    </Table.Td>
                    <Table.Td>
                      {testable ? (
                        <Anchor
                          component={Link}
                          size="sm"
                          to={`/projects/${projectId}/test?op=${encodeURIComponent(`${endpoint.method.toUpperCase()} ${relative}`)}`}
                          aria-label={`Test ${endpoint.method} ${relative}`}
                        >
                          Test
                        </Anchor>
                      ) : (
                        <Anchor href={endpoint.path} target="_blank" rel="noreferrer" size="sm" aria-label={`Open ${relative}`}>
                          Open
                        </Anchor>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {result.endpoints.length === 0 && <Badge color="gray.8">No endpoints</Badge>}
      </Alert>
      {after.length > 0 && (
        <Alert
          color={failed.length ? 'orange' : 'gray'}
          variant="light"
          icon={failed.length ? <IconAlertTriangle aria-hidden /> : <IconCircleCheck aria-hidden />}
          title={
            failed.length
              ? `${failed.length} of ${after.length} steps after the commit failed; the next generate finishes them`
              : `${after.length} ${after.length === 1 ? 'step' : 'steps'} after the commit done`
          }
          data-testid="after-commit"
        >
          <Text size="sm" mb={4}>
            The new version is live either way: these steps only validate constraints while the API keeps serving.
          </Text>
          <List size="sm" spacing={4}>
            {after.map((step, i) => (
              <List.Item key={`${i}-${step.statement}`}>
                <span className="mono">{step.statement}</span>{' '}
                {step.error ? (
                  <Text span size="sm" c={tones.danger} fw={600}>
                    — failed: {step.error}
                  </Text>
                ) : (
                  <Text span size="sm" c={tones.success}>
                    — done
                  </Text>
                )}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      <IndexBuildsPanel projectId={projectId} version={result.version} initial={result.indexes} />
    </Stack>
  );
}

/** Endpoint paths may be full (`/v1/<id>/users`) or relative (`/users`). */
export function relativePath(path: string, projectId: string): string {
  const prefix = `/v1/${projectId}`;
  return path.startsWith(prefix) ? path.slice(prefix.length) || '/' : path;
}
