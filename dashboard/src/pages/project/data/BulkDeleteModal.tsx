import { Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useRecordsBulkDeleteMutation } from '../../../data/records/records-bulk-delete-mutation';
import type { SchemaDocument } from '../../../schema/document';
import { tones } from '../../../tones';

interface BulkDeleteModalProps {
  projectId: string;
  tableName: string;
  schema: SchemaDocument;
  credential: string;
  ids: string[];
  opened: boolean;
  onClose: () => void;
  onDeleted: (count: number) => void;
}

/** Confirms deleting the selected records, naming them and what their foreign keys take along. */
export function BulkDeleteModal({ projectId, tableName, schema, credential, ids, opened, onClose, onDeleted }: BulkDeleteModalProps) {
  const remove = useRecordsBulkDeleteMutation();
  const dependents = schema.tables.flatMap((t) =>
    t.columns.filter((c) => c.references?.table === tableName).map((c) => ({ table: t.name, column: c.name, action: c.references?.on_delete ?? 'restrict' })),
  );
  const close = () => {
    remove.reset();
    onClose();
  };
  const noun = ids.length === 1 ? 'record' : 'records';
  return (
    <Modal opened={opened} onClose={close} title={`Delete ${ids.length} ${noun} from ${tableName}?`}>
      <Stack gap="sm">
        {remove.error ? (
          // After a refusal, say only why: nothing was deleted.
          <ErrorAlert error={remove.error} title="Nothing was deleted" />
        ) : (
          <Text size="sm">
            These {noun} are deleted for good, in one request: {ids.map((id) => `#${id}`).join(', ')}.
          </Text>
        )}
        {dependents.length > 0 && (
          <List size="sm">
            {dependents.map((d) => (
              <List.Item key={`${d.table}.${d.column}`}>
                {d.action === 'cascade' && `records in ${d.table} that reference them through ${d.column} are deleted too`}
                {d.action === 'set_null' && `records in ${d.table} that reference them keep existing with ${d.column} cleared`}
                {d.action === 'restrict' && `the delete is refused, and nothing is deleted, while ${d.table} records reference them through ${d.column}`}
              </List.Item>
            ))}
          </List>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Keep them
          </Button>
          <Button
            color={tones.danger}
            loading={remove.isPending}
            onClick={() =>
              remove.mutate(
                { projectId, table: tableName, ids, credential },
                {
                  onSuccess: (count) => {
                    onDeleted(count);
                    close();
                  },
                },
              )
            }
          >
            Delete {ids.length} {noun}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
