import { Button, Group, List, NativeSelect, Text } from '@mantine/core';
import { IconLink } from '@tabler/icons-react';
import { useState, type Dispatch } from 'react';
import type { BuilderAction, DraftTable } from '../../../builder/state';
import { forwardRelationName } from '../../../schema/document';

interface RelationshipAdderProps {
  table: DraftTable;
  tables: DraftTable[];
  dispatch: Dispatch<BuilderAction>;
}

/** Lists the table's foreign keys and adds one by choosing the target table. */
export function RelationshipAdder({ table, tables, dispatch }: RelationshipAdderProps) {
  const [target, setTarget] = useState('');
  const outgoing = table.columns.filter((c) => c.references);
  const incoming = tables.flatMap((t) =>
    t.columns.filter((c) => c.targetKey === table.key).map((c) => ({ table: t.name, column: c.name, name: c.reverse_relation || t.name })),
  );
  const candidates = tables.filter((t) => t.name);

  return (
    <>
      {outgoing.length + incoming.length === 0 ? (
        <Text size="sm" c="dimmed" mb="xs">
          No relationships yet. Choose a table below, or drag from this table's link handle onto another table in the diagram.
        </Text>
      ) : (
        <List size="sm" mb="xs" spacing={2}>
          {outgoing.map((c) => (
            <List.Item key={c.key}>
              <b className="mono">{c.name}</b> → {c.references!.table} (include <span className="mono">{forwardRelationName(c)}</span>)
            </List.Item>
          ))}
          {incoming.map((r) => (
            <List.Item key={`${r.table}.${r.column}`}>
              {r.table}.<span className="mono">{r.column}</span> points here (include <span className="mono">{r.name}</span>)
            </List.Item>
          ))}
        </List>
      )}
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <NativeSelect
          label="Add a foreign key to"
          data={[{ value: '', label: 'Choose a table…' }, ...candidates.map((t) => ({ value: t.name, label: t.name }))]}
          value={target}
          onChange={(e) => setTarget(e.currentTarget.value)}
          style={{ flex: 1 }}
        />
        <Button
          variant="light"
          leftSection={<IconLink size={16} />}
          disabled={!target}
          onClick={() => {
            dispatch({ type: 'addRelationship', tableKey: table.key, targetTable: target });
            setTarget('');
          }}
        >
          Add relationship
        </Button>
      </Group>
    </>
  );
}
