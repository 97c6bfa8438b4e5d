import { Alert, Anchor, Badge, Button, Group, List, Stack, Table, Text, Title } from '@mantine/core';
import { IconDatabaseImport, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import type { DatabaseChange, IntrospectionReport } from '../../../api/types';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useSchemaRefreshMutation, type RefreshAnswer } from '../../../data/schema/schema-refresh-mutation';
import { databaseChangeLabel, refreshSummary, sameReport, splitRefreshChanges } from '../../../external/connection';
import { tones } from '../../../tones';
import { IntrospectionNotes, LeftOutTables } from './IntrospectionReport';

/**
 * "Refresh from database": re-reads the fronted database and shows how it
 * differs from the schema; adopting publishes the database's changes (no
 * DDL) and merges them into the draft. It never changes that database.
 */
export function RefreshFromDatabase({ projectId, report }: { projectId: string; report?: IntrospectionReport }) {
  const compare = useSchemaRefreshMutation();
  const adopt = useSchemaRefreshMutation();
  const [adopted, setAdopted] = useState<RefreshAnswer | null>(null);
  const found = compare.data;
  const split = splitRefreshChanges(found?.result.changes);
  const reportChanged = found ? !sameReport(report, found.result) : false;

  const check = () => {
    setAdopted(null);
    adopt.reset();
    compare.mutate({ projectId, apply: false });
  };

  return (
    <Stack gap="sm" aria-labelledby="refresh-title" component="section">
      <Group justify="space-between" wrap="wrap">
        <div>
          <Title order={3} size="h5" id="refresh-title">
            Refresh from database
          </Title>
          <Text size="sm" c="dimmed">
            After someone changed the database outside Tablesmith: read it again and compare it with the schema. Nothing is changed until you
            adopt.
          </Text>
        </div>
        <Button variant="default" leftSection={<IconRefresh size={16} />} onClick={check} loading={compare.isPending}>
          Refresh from database
        </Button>
      </Group>
      {compare.error ? <ErrorAlert error={compare.error} title="The database could not be read" /> : null}
      {adopted && (
        <Alert color="teal" variant="light" title={refreshSummary(adopted.result)} role="status" data-testid="refresh-adopted">
          <Text size="sm">
            {adopted.result.version ? `The published schema is now version ${adopted.result.version}, and ` : ''}the draft has the database's
            changes.{' '}
            <Anchor component={Link} to={`/projects/${projectId}/schema`} size="sm">
              Open the builder
            </Anchor>
          </Text>
        </Alert>
      )}
      {found && !adopted && (
        <Stack gap="sm" data-testid="refresh-report">
          <Text size="sm" fw={600} role="status">
            {refreshSummary(found.result)}
          </Text>
          {split.database.length > 0 && (
            <ChangeTable caption="Changed in the database" changes={split.database} />
          )}
          {split.draft.length > 0 && (
            <>
              <ChangeTable caption="Unpublished edits of your draft" changes={split.draft} />
              <Text size="sm" c="dimmed">
                These are yours: adopting keeps them, and the next generate applies them to the database.
              </Text>
            </>
          )}
          {(found.result.replaced?.length ?? 0) > 0 && (
            <Alert color="orange" variant="light" title="Adopting replaces these unpublished edits" p="sm">
              <Text size="sm" mb={4}>
                The database changed the same tables or columns; its version wins:
              </Text>
              <List size="sm">
                {found.result.replaced!.map((r) => (
                  <List.Item key={r}>{r}</List.Item>
                ))}
              </List>
            </Alert>
          )}
          {reportChanged ? (
            <>
              <LeftOutTables tables={found.result.unsupported ?? []} caption="Left out as read now" />
              <IntrospectionNotes notes={found.result.notes ?? []} />
            </>
          ) : (
            <Text size="sm" c="dimmed">
              The tables left out and the notes are as above.
            </Text>
          )}
          {adopt.error ? <ErrorAlert error={adopt.error} title="The changes were not adopted" /> : null}
          <Group>
            <Button
              leftSection={<IconDatabaseImport size={16} />}
              loading={adopt.isPending}
              onClick={() => adopt.mutate({ projectId, apply: true }, { onSuccess: (answer) => setAdopted(answer) })}
            >
              {split.database.length
                ? `Adopt the ${split.database.length === 1 ? 'change' : `${split.database.length} changes`} from the database`
                : 'Keep this read as the report'}
            </Button>
            <Text size="sm" c="dimmed">
              {split.database.length
                ? 'Publishes a new version without running anything in the database; your draft keeps its own edits.'
                : 'Nothing to adopt; this stores the tables left out and the notes as read now.'}
            </Text>
          </Group>
        </Stack>
      )}
    </Stack>
  );
}

function ChangeTable({ caption, changes }: { caption: string; changes: DatabaseChange[] }) {
  return (
    <Table.ScrollContainer minWidth={520}>
      <Table striped verticalSpacing={4} aria-label={caption}>
        <Table.Caption style={{ captionSide: 'top', textAlign: 'left' }}>
          <Text span size="sm" fw={600}>
            {caption}
          </Text>
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Change</Table.Th>
            <Table.Th>Where</Table.Th>
            <Table.Th>What</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {changes.map((c, i) => (
            <Table.Tr key={`${i}-${c.kind}-${c.table}-${c.column ?? ''}`}>
              <Table.Td>
                <Badge variant="outline" color={c.origin === 'database' ? tones.info : 'gray.8'} tt="none">
                  {databaseChangeLabel(c.kind)}
                </Badge>
              </Table.Td>
              <Table.Td className="mono">
                {c.table}
                {c.column ? `.${c.column}` : ''}
              </Table.Td>
              <Table.Td>{c.description}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
