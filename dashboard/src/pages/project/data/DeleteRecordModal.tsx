import { Button, Code, Group, List, Modal, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useRecordDeleteMutation } from '../../../data/records/record-delete-mutation';
import type { RecordRow } from '../../../data/records/records-query';
import type { SchemaDocument } from '../../../schema/document';
import { tones } from '../../../tones';

interface DeleteRecordModalProps {
  projectId: string;
  tableName: string;
  schema: SchemaDocument;
  credential: string;
  record: RecordRow | undefined;
  onClose: () => void;
}

/** Confirms a record deletion, naming the record and what its foreign keys take along. */
export function DeleteRecordModal({ projectId, tableName, schema, credential, record, onClose }: DeleteRecordModalProps) {
  const remove = useRecordDeleteMutation();
  const { reset } = remove;
  // A refusal belongs to the record it was about, not the next one opened.
  useEffect(() => reset(), [record, reset]);
  const dependents = schema.tables.flatMap((t) =>
    t.columns.filter((c) => c.references?.table === tableName).map((c) => ({ table: t.name, column: c.name, action: c.references?.on_delete ?? 'restrict' })),
  );
  return (
    <Modal opened={Boolean(record)} onClose={onClose} title={`Delete ${tableName} #${record?.id ?? ''}?`}>
      {record && (
        <Stack gap="sm">
          {remove.error ? (
            // After a refusal, say only why: nothing was deleted.
            <ErrorAlert error={remove.error} title="The record was not deleted" />
          ) : (
            <Text size="sm">This record is deleted for good:</Text>
          )}
          {/* Focusable: on a phone the record scrolls sideways. */}
          <Code block tabIndex={0} aria-label={`${tableName} #${record.id}`}>
            {JSON.stringify(record, null, 2)}
          </Code>
          {dependents.length > 0 && (
            <List size="sm">
              {dependents.map((d) => (
                <List.Item key={`${d.table}.${d.column}`}>
                  {d.action === 'cascade' && (
                    <>
                      <b>{d.table}</b> records whose {d.column} is {String(record.id)} are deleted too
                    </>
                  )}
                  {d.action === 'set_null' && (
                    <>
                      {d.table} records whose {d.column} is {String(record.id)} keep existing with {d.column} cleared
                    </>
                  )}
                  {d.action === 'restrict' && (
                    <>
                      the delete is refused while {d.table} records have {d.column} = {String(record.id)}
                    </>
                  )}
                </List.Item>
              ))}
            </List>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Keep it
            </Button>
            <Button
              color={tones.danger}
              loading={remove.isPending}
              onClick={() => remove.mutate({ projectId, table: tableName, id: record.id, credential }, { onSuccess: onClose })}
            >
              {remove.error ? 'Try again' : 'Delete record'}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
