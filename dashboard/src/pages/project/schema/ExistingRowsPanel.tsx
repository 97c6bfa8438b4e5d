import { Alert, Anchor, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { Dispatch } from 'react';
import { describeBlockedColumn, type ColumnBlockedByRows } from '../../../builder/existingRows';
import type { BuilderAction, DraftTable } from '../../../builder/state';
import { DefaultValueInput } from './DefaultValueInput';

interface ExistingRowsPanelProps {
  blocked: ColumnBlockedByRows[];
  tables: DraftTable[];
  dispatch: Dispatch<BuilderAction>;
  onSelectPath: (path: string) => void;
}

/**
 * The added columns generate would refuse because of rows the table
 * already holds, each with the two ways out of a missing value: a default
 * (kept for new records too) or a value the existing rows get once.
 */
export function ExistingRowsPanel({ blocked, tables, dispatch, onSelectPath }: ExistingRowsPanelProps) {
  if (blocked.length === 0) return null;
  return (
    <Alert color="orange" variant="light" icon={<IconAlertTriangle aria-hidden />} title="Generate would refuse this draft: existing rows are in the way" data-testid="existing-rows">
      <Stack gap="sm">
        {blocked.map((b) => {
          const table = tables[b.tableIndex];
          const column = table?.columns[b.columnIndex];
          if (!table || !column) return null;
          const at = `tables[${b.tableIndex}].columns[${b.columnIndex}]`;
          const set = (patch: Record<string, unknown>) => dispatch({ type: 'updateColumn', tableKey: table.key, columnKey: column.key, patch });
          return (
            <Stack key={at} gap={6} data-testid="blocked-column">
              <Text size="sm">
                <Anchor component="button" type="button" size="sm" fw={600} onClick={() => onSelectPath(`${at}.name`)}>
                  {b.table} › {b.column}
                </Anchor>
                : {describeBlockedColumn(b)}
              </Text>
              {b.rule === 'needs-value' && !b.upload && (
                <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" maw={640}>
                  <DefaultValueInput
                    column={column}
                    label={`Default of ${b.column}`}
                    description="New records without a value get it too"
                    onChange={(value) => set({ default: value })}
                  />
                  <DefaultValueInput
                    column={column}
                    field="backfill"
                    label={`Fill existing rows of ${b.column} once with`}
                    description="Only the rows there now; not a default"
                    onChange={(value) => set({ backfill: value })}
                  />
                </SimpleGrid>
              )}
            </Stack>
          );
        })}
      </Stack>
    </Alert>
  );
}
