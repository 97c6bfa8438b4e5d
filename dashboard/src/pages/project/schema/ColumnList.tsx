import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import type { Dispatch } from 'react';
import type { BuilderAction, DraftTable } from '../../../builder/state';
import type { SchemaProblems } from '../../../builder/validation';
import { ColumnRow } from './ColumnRow';

interface ColumnListProps {
  table: DraftTable;
  tableIndex: number;
  tables: DraftTable[];
  problems: SchemaProblems;
  dispatch: Dispatch<BuilderAction>;
}

export function ColumnList({ table, tableIndex, tables, problems, dispatch }: ColumnListProps) {
  const external = table.external;
  const systemColumns = external
    ? []
    : [
        { name: 'id', type: table.id_type === 'uuid' ? 'uuid' : 'integer', note: 'primary key, set by the service' },
        { name: 'created_at', type: 'timestamp', note: 'set when a record is created' },
        { name: 'updated_at', type: 'timestamp', note: 'set on every change' },
      ];
  const timestamps = external ? (['created_at', 'updated_at'] as const).filter((n) => (n === 'created_at' ? external.has_created_at : external.has_updated_at)) : [];
  return (
    <Stack gap="xs">
      <Paper withBorder p="xs" bg="gray.0" component="section" aria-label={external ? 'Columns the database manages' : 'System columns'}>
        <Stack gap={2}>
          {external && (
            <Text size="xs" c="dimmed" data-testid="external-table-note">
              A table of your database, with only the columns below. Its key <span className="mono">{external.primary_key}</span> is assigned by
              the database.{' '}
              {timestamps.length
                ? `The API sets ${timestamps.join(' and ')} as on managed tables.`
                : 'It has no created_at or updated_at that the API maintains.'}
            </Text>
          )}
          {systemColumns.map((c) => (
            <Group key={c.name} justify="space-between" wrap="nowrap" gap="xs">
              <Group gap={6} wrap="nowrap" style={{ flexShrink: 0 }}>
                <Text size="sm" className="mono">
                  {c.name}
                </Text>
                <Badge size="xs" variant="outline" color="gray.8" style={{ flexShrink: 0, overflow: 'visible' }}>
                  system
                </Badge>
              </Group>
              <Text size="xs" c="dimmed" truncate="end" visibleFrom="sm" style={{ minWidth: 0 }} title={`${c.type} · ${c.note}`}>
                {c.type} · {c.note}
              </Text>
            </Group>
          ))}
        </Stack>
      </Paper>
      {table.columns.length === 0 && (
        <Text size="sm" c="dimmed">
          No columns of your own yet. Add one, or draw a relationship to another table.
        </Text>
      )}
      {table.columns.map((column, index) => (
        <ColumnRow
          key={column.key}
          column={column}
          index={index}
          count={table.columns.length}
          table={table}
          tables={tables}
          path={`tables[${tableIndex}].columns[${index}]`}
          problems={problems}
          dispatch={dispatch}
        />
      ))}
    </Stack>
  );
}
