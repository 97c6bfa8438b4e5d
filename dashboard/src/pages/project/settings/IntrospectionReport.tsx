import { List, Stack, Table, Text, Title } from '@mantine/core';
import type { IntrospectionNote, UnsupportedTable } from '../../../api/types';
import { relationKindLabel } from '../../../external/connection';

// What reading a fronted database reported: the tables it left out with
// their reason, and remarks on tables and columns.

export function LeftOutTables({ tables, caption = 'Left out of the API' }: { tables: UnsupportedTable[]; caption?: string }) {
  if (tables.length === 0) {
    return (
      <Text size="sm" data-testid="left-out-none">
        Every table of the schema is served.
      </Text>
    );
  }
  return (
    <Stack gap={4}>
      <Title order={3} size="h5">
        {caption} ({tables.length})
      </Title>
      <Text size="sm" c="dimmed">
        Generate never touches these, and their paths answer 404.
      </Text>
      <Table.ScrollContainer minWidth={520}>
        <Table striped verticalSpacing={4} aria-label={caption}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Table</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Why it is left out</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tables.map((t) => (
              <Table.Tr key={`${t.kind}-${t.table}`}>
                <Table.Td className="mono">{t.table}</Table.Td>
                <Table.Td>{relationKindLabel(t.kind)}</Table.Td>
                <Table.Td>{t.reason}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

export function IntrospectionNotes({ notes }: { notes: IntrospectionNote[] }) {
  if (notes.length === 0) return null;
  const list = (
    <List size="sm" spacing={2}>
      {notes.map((n, i) => (
        <List.Item key={`${i}-${n.table}-${n.column ?? ''}`}>
          <span className="mono">
            {n.table}
            {n.column ? `.${n.column}` : ''}
          </span>
          : {n.note}
        </List.Item>
      ))}
    </List>
  );
  return (
    <details open={notes.length <= 5}>
      <summary>
        <Text span size="sm" fw={600}>
          Notes from reading the database ({notes.length})
        </Text>
      </summary>
      <div style={{ marginTop: 4 }}>{list}</div>
    </details>
  );
}
