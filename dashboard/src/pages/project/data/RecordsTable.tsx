import { ActionIcon, Group, Table, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconPencil, IconTrash } from '@tabler/icons-react';
import type { RecordRow } from '../../../data/records/records-query';
import type { SortKey } from '../../../console/listQuery';
import { tones } from '../../../tones';

interface RecordsTableProps {
  columns: string[];
  rows: RecordRow[];
  sort: SortKey | undefined;
  onSort: (column: string) => void;
  onEdit: (row: RecordRow) => void;
  onDelete: (row: RecordRow) => void;
  canWrite: boolean;
}

export function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function RecordsTable({ columns, rows, sort, onSort, onEdit, onDelete, canWrite }: RecordsTableProps) {
  return (
    <Table.ScrollContainer minWidth={Math.max(500, columns.length * 140)}>
      <Table striped highlightOnHover verticalSpacing="xs" aria-label="Records" data-testid="records-table">
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => {
              const active = sort?.column === column;
              return (
                <Table.Th key={column} aria-sort={active ? (sort!.descending ? 'descending' : 'ascending') : undefined}>
                  <UnstyledButton onClick={() => onSort(column)} fw={600} fz="sm" aria-label={`Sort by ${column}`}>
                    <Group gap={4} wrap="nowrap">
                      {column}
                      {active && (sort!.descending ? <IconArrowDown size={14} aria-hidden /> : <IconArrowUp size={14} aria-hidden />)}
                    </Group>
                  </UnstyledButton>
                </Table.Th>
              );
            })}
            <Table.Th>
              <Text size="sm" fw={600}>
                Actions
              </Text>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={String(row.id)}>
              {columns.map((column) => (
                <Table.Td key={column} maw={280}>
                  <Text size="sm" truncate="end" title={formatCell(row[column])} className={typeof row[column] === 'number' ? 'mono' : undefined}>
                    {formatCell(row[column])}
                  </Text>
                </Table.Td>
              ))}
              <Table.Td>
                <Group gap={2} wrap="nowrap">
                  <Tooltip label={canWrite ? 'Edit' : 'This key can only read'}>
                    <ActionIcon variant="subtle" color="gray.8" aria-label={`Edit record ${row.id}`} onClick={() => onEdit(row)} disabled={!canWrite}>
                      <IconPencil size={16} />
                    </ActionIcon>
                  </Tooltip>
                  <Tooltip label={canWrite ? 'Delete' : 'This key can only read'}>
                    <ActionIcon variant="subtle" color={tones.danger} aria-label={`Delete record ${row.id}`} onClick={() => onDelete(row)} disabled={!canWrite}>
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
