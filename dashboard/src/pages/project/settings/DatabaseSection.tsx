import { Button, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPlugConnected } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { isApiError } from '../../../api/client';
import type { Project } from '../../../api/types';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useProjectConnectionMutation } from '../../../data/projects/project-connection-mutation';
import { connectionFieldErrors, healthSummary } from '../../../external/connection';
import { formatDateTime } from '../../../lib/format';
import { tones } from '../../../tones';
import { ConnectionStatusBadge } from './ConnectionStatusBadge';
import { IntrospectionNotes, LeftOutTables } from './IntrospectionReport';
import { RefreshFromDatabase } from './RefreshFromDatabase';

/** The database a postgres_external project fronts: connection and health, what was left out, refresh, and a new connection. */
export function DatabaseSection({ project }: { project: Project }) {
  const connection = project.connection;
  const health = healthSummary(connection?.status);
  const report = project.introspection;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="database-title" id="database">
      <Stack gap="md">
        <div>
          <Title order={2} size="h4" id="database-title">
            Database
          </Title>
          <Text size="sm" c="dimmed">
            This project fronts a PostgreSQL database you run. Tablesmith changes it only when you generate, and never drops anything without
            asking.
          </Text>
        </div>
        {connection ? (
          <Table variant="vertical" layout="fixed" withTableBorder aria-label="Connection">
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={160}>Connection</Table.Th>
                <Table.Td className="mono" style={{ wordBreak: 'break-all' }} data-testid="connection-url">
                  {connection.url}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Schema</Table.Th>
                <Table.Td className="mono">{connection.schema}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Status</Table.Th>
                <Table.Td>
                  <Group gap="xs" wrap="wrap">
                    <ConnectionStatusBadge summary={health} />
                    {connection.status?.since && (
                      <Text size="sm" c="dimmed">
                        since {formatDateTime(connection.status.since)}
                      </Text>
                    )}
                  </Group>
                  {health.detail && (
                    <Text size="sm" mt={4} c={health.tone === 'danger' ? tones.danger : 'dimmed'}>
                      {health.detail}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
              {report?.introspected_at && (
                <Table.Tr>
                  <Table.Th>Last read</Table.Th>
                  <Table.Td>{formatDateTime(report.introspected_at)}</Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
        ) : (
          <Text size="sm">The connection of this project is not shown by the server.</Text>
        )}
        <LeftOutTables tables={report?.unsupported ?? []} />
        <IntrospectionNotes notes={report?.notes ?? []} />
        <RefreshFromDatabase projectId={project.id} report={report} />
        <ReplaceConnection project={project} />
      </Stack>
    </Paper>
  );
}

/** PATCH the project with a new connection (a rotated password, a moved server): checked like on create. */
function ReplaceConnection({ project }: { project: Project }) {
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState('');
  const [schema, setSchema] = useState(project.connection?.schema ?? 'public');
  const update = useProjectConnectionMutation();
  const errors = isApiError(update.error) ? connectionFieldErrors(update.error.details, update.error.info) : {};
  const shownAtFields = Boolean(errors.url || errors.schema);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!url.trim() || !schema.trim()) return;
    update.mutate(
      { projectId: project.id, connection: { url: url.trim(), schema: schema.trim() } },
      {
        onSuccess: () => {
          setOpen(false);
          setUrl('');
          notifications.show({ color: 'teal', title: 'Connection replaced', message: 'Refresh from the database to see how it differs from the schema.' });
        },
      },
    );
  };

  if (!open) {
    return (
      <Group>
        <Button variant="default" leftSection={<IconPlugConnected size={16} />} onClick={() => setOpen(true)}>
          Replace the connection…
        </Button>
      </Group>
    );
  }
  return (
    <form onSubmit={submit} aria-label="Replace the connection" noValidate>
      <Stack gap="sm">
        <Title order={3} size="h5">
          Replace the connection
        </Title>
        <Text size="sm" c="dimmed">
          Checked like on create before it is stored (encrypted). The schema document stays as it is.
        </Text>
        <TextInput
          label="Connection URL"
          placeholder="postgres://user:password@db.example.com:5432/app"
          required
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          error={errors.url}
          autoComplete="off"
        />
        <TextInput label="Schema" required value={schema} onChange={(e) => setSchema(e.currentTarget.value)} error={errors.schema} />
        {update.error && !shownAtFields ? <ErrorAlert error={update.error} title="The connection was not replaced" /> : null}
        <Group justify="flex-end">
          <Button
            variant="default"
            onClick={() => {
              setOpen(false);
              update.reset();
            }}
          >
            Cancel
          </Button>
          <Button type="submit" loading={update.isPending} disabled={!url.trim() || !schema.trim()}>
            Check and replace
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
