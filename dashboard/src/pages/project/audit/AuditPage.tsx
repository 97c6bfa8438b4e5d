import { Badge, Button, Code, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { useAuditQuery } from '../../../data/members/members';
import { formatDateTime } from '../../../lib/format';
import { atLeast, roleNeeded } from '../../../lib/roles';
import { useProjectId } from '../useProjectId';
import { useProjectRole } from '../useProjectRole';
import { actionText, detailsText } from './auditText';

export function AuditPage() {
  const projectId = useProjectId();
  const role = useProjectRole();
  if (role && !atLeast(role, 'admin')) {
    return (
      <Stack gap="md" maw={1100}>
        <PageHeader title="Audit log" />
        <EmptyState title="The audit log is for admins">{roleNeeded('admin')}.</EmptyState>
      </Stack>
    );
  }
  return <AuditLog projectId={projectId} />;
}

function AuditLog({ projectId }: { projectId: string }) {
  const audit = useAuditQuery(projectId);
  const entries = audit.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <Stack gap="md" maw={1100}>
      <PageHeader title="Audit log" description="Who changed what in this project, newest first." />
      {audit.isPending && <LoadingState label="Loading the audit log…" />}
      {audit.error && <ErrorAlert error={audit.error} title="Could not load the audit log" />}
      {audit.data && entries.length === 0 && <EmptyState title="Nothing yet">Changes to the schema, keys, settings, members and webhooks appear here.</EmptyState>}
      {entries.length > 0 && (
        <Paper withBorder>
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="xs" aria-label="Audit log">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>When</Table.Th>
                  <Table.Th>Who</Table.Th>
                  <Table.Th>What</Table.Th>
                  <Table.Th>Details</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {entries.map((e) => (
                  <Table.Tr key={e.id}>
                    <Table.Td>
                      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                        {formatDateTime(e.at)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{e.actor_email}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={6} wrap="nowrap">
                        <Text size="sm">{actionText(e)}</Text>
                        <Badge size="xs" variant="light" color="gray">
                          {e.action}
                        </Badge>
                      </Group>
                      {e.target && <Code fz="xs">{e.target}</Code>}
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" c="dimmed">
                        {detailsText(e.details as Record<string, unknown>)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      {audit.hasNextPage && (
        <Group>
          <Button variant="default" onClick={() => void audit.fetchNextPage()} loading={audit.isFetchingNextPage}>
            Older entries
          </Button>
        </Group>
      )}
    </Stack>
  );
}
