import { ActionIcon, Checkbox, Group, Table, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconArrowsSort, IconPencil, IconTrash } from '@tabler/icons-react';
import type { SortKey } from '../../../console/listQuery';
import type { RecordRow } from '../../../data/records/records-query';
import { isSortable, type GridColumn } from '../../../grid/columns';
import { forwardRelationName, type SchemaDocument } from '../../../schema/document';
import { tones } from '../../../tones';
import classes from './DataGrid.module.css';
import { GridCell } from './GridCell';

interface DataGridProps {
  projectId: string;
  tableName: string;
  schema: SchemaDocument;
  credential: string;
  columns: GridColumn[];
  rows: RecordRow[];
  sort: SortKey | undefined;
  onSort: (column: string) => void;
  selected: ReadonlySet<string>;
  onSelect: (ids: string[], on: boolean) => void;
  onEdit: (row: RecordRow) => void;
  onDelete: (row: RecordRow) => void;
  canWrite: boolean;
}

/** The records of one page: sortable headers, editable cells, row selection, and Actions kept in view. */
export function DataGrid({ projectId, tableName, schema, credential, columns, rows, sort, onSort, selected, onSelect, onEdit, onDelete, canWrite }: DataGridProps) {
  const pageIds = rows.map((r) => String(r.id));
  const selectedOnPage = pageIds.filter((id) => selected.has(id)).length;
  return (
    <Table.ScrollContainer minWidth={Math.max(560, columns.length * 150 + 140)} data-testid="records-scroll">
      <Table striped highlightOnHover verticalSpacing="xs" aria-label={`${tableName} records`} data-testid="records-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th className={classes.select}>
              <Checkbox
                aria-label="Select every record on this page"
                checked={rows.length > 0 && selectedOnPage === rows.length}
                indeterminate={selectedOnPage > 0 && selectedOnPage < rows.length}
                onChange={(e) => onSelect(pageIds, e.currentTarget.checked)}
                disabled={!canWrite}
              />
            </Table.Th>
            {columns.map((column) => {
              const active = sort?.column === column.name;
              const sortable = isSortable(column);
              const direction = active ? (sort!.descending ? 'descending' : 'ascending') : 'none';
              return (
                <Table.Th key={column.name} aria-sort={sortable ? direction : undefined}>
                  {sortable ? (
                    <UnstyledButton
                      onClick={() => onSort(column.name)}
                      fw={600}
                      fz="sm"
                      aria-label={`${column.name}: sort ${active && !sort!.descending ? 'descending' : 'ascending'}`}
                    >
                      <Group gap={4} wrap="nowrap">
                        {column.name}
                        {active ? (
                          sort!.descending ? (
                            <IconArrowDown size={14} aria-hidden />
                          ) : (
                            <IconArrowUp size={14} aria-hidden />
                          )
                        ) : (
                          <IconArrowsSort size={14} aria-hidden opacity={0.4} />
                        )}
                      </Group>
                    </UnstyledButton>
                  ) : (
                    <Text size="sm" fw={600}>
                      {column.name}
                    </Text>
                  )}
                </Table.Th>
              );
            })}
            <Table.Th className={classes.actions}>
              <Text size="sm" fw={600}>
                Actions
              </Text>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => {
            const id = String(row.id);
            return (
              <Table.Tr key={id} data-record-id={id}>
                <Table.Td className={classes.select}>
                  <Checkbox aria-label={`Select record ${id}`} checked={selected.has(id)} onChange={(e) => onSelect([id], e.currentTarget.checked)} disabled={!canWrite} />
                </Table.Td>
                {columns.map((column) => (
                  <GridCell
                    key={column.name}
                    projectId={projectId}
                    tableName={tableName}
                    schema={schema}
                    credential={credential}
                    column={column}
                    row={row}
                    canWrite={canWrite}
                    referenced={column.column?.references ? (row[forwardRelationName(column.column)] as Record<string, unknown> | null | undefined) : undefined}
                  />
                ))}
                <Table.Td className={classes.actions}>
                  <Group gap={2} wrap="nowrap">
                    <Tooltip label={canWrite ? 'Edit in a form' : 'This key can only read'}>
                      <ActionIcon variant="subtle" color="gray.8" aria-label={`Edit record ${id}`} onClick={() => onEdit(row)} disabled={!canWrite}>
                        <IconPencil size={16} />
                      </ActionIcon>
                    </Tooltip>
                    <Tooltip label={canWrite ? 'Delete' : 'This key can only read'}>
                      <ActionIcon variant="subtle" color={tones.danger} aria-label={`Delete record ${id}`} onClick={() => onDelete(row)} disabled={!canWrite}>
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
