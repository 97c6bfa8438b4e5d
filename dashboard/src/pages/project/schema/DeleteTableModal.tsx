import { Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import type { DraftTable } from '../../../builder/state';
import type { SchemaDocument } from '../../../schema/document';
import { tones } from '../../../tones';

interface DeleteTableModalProps {
  table: DraftTable | undefined;
  tables: DraftTable[];
  published: SchemaDocument | null;
  onConfirm: () => void;
  onClose: () => void;
}

/** Confirms a table deletion, listing exactly what goes with it. */
export function DeleteTableModal({ table, tables, published, onConfirm, onClose }: DeleteTableModalProps) {
  const publishedName = table && (table.renamed_from ?? table.name);
  const isPublished = Boolean(published?.tables.some((t) => t.name === publishedName));
  const referencing = table
    ? tables.flatMap((t) => t.columns.filter((c) => c.targetKey === table.key && t.key !== table.key).map((c) => `${t.name}.${c.name}`))
    : [];

  return (
    <Modal opened={Boolean(table)} onClose={onClose} title={`Delete table ${table?.name ?? ''}?`}>
      {table && (
        <Stack gap="sm">
          <Text size="sm">This removes from the draft:</Text>
          <List size="sm">
            <List.Item>
              the table <b>{table.name}</b> with its {table.columns.length} {table.columns.length === 1 ? 'column' : 'columns'}
              {table.columns.length > 0 && `: ${table.columns.map((c) => c.name).join(', ')}`}
            </List.Item>
            {referencing.length > 0 && (
              <List.Item>
                the foreign keys {referencing.join(', ')}: those columns stay, but no longer point at {table.name}
              </List.Item>
            )}
            {isPublished && (
              <List.Item>
                <b>all records of {publishedName}</b>, when you next generate (the published API still has them until then)
              </List.Item>
            )}
          </List>
          <Text size="sm" c="dimmed">
            Until you save, you can reload the page to get it back.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Keep table
            </Button>
            <Button color={tones.danger} onClick={onConfirm}>
              Delete table
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
