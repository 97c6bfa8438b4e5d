import { NativeSelect, SimpleGrid } from '@mantine/core';
import type { Dispatch } from 'react';
import type { BuilderAction, DraftTable } from '../../../builder/state';
import { problemAt, type SchemaProblems } from '../../../builder/validation';
import { OPERATIONS, type PermissionLevel } from '../../../schema/document';

interface PermissionsEditorProps {
  table: DraftTable;
  tableIndex: number;
  tables: DraftTable[];
  problems: SchemaProblems;
  dispatch: Dispatch<BuilderAction>;
}

const LEVEL_OPTIONS = [
  { value: '', label: 'Default (authenticated)' },
  { value: 'public', label: 'Public: no credential' },
  { value: 'authenticated', label: 'Authenticated: any key or user token' },
  { value: 'owner', label: 'Owner: users reach their own rows' },
  { value: 'key', label: 'Key: API keys only' },
];

const OPERATION_LABELS = { read: 'Read (list and get)', create: 'Create', update: 'Update', delete: 'Delete' };

export function PermissionsEditor({ table, tableIndex, tables, problems, dispatch }: PermissionsEditorProps) {
  const at = `tables[${tableIndex}]`;
  const authTable = tables.find((t) => t.auth);
  const usesOwner = OPERATIONS.some((op) => table.permissions?.[op] === 'owner') || table.owner_column !== undefined;
  const ownerCandidates = table.columns.filter(
    (c) => (c.references && (!authTable || c.targetKey === authTable.key)) || c.name === table.owner_column,
  );

  return (
    // One column: the editor pane is narrow, and two cut the options' text.
    <SimpleGrid cols={1} spacing="sm">
      {OPERATIONS.map((op) => (
        <NativeSelect
          key={op}
          label={OPERATION_LABELS[op]}
          data={LEVEL_OPTIONS}
          value={table.permissions?.[op] ?? ''}
          onChange={(e) =>
            dispatch({
              type: 'setPermission',
              tableKey: table.key,
              operation: op,
              level: (e.currentTarget.value || undefined) as PermissionLevel | undefined,
            })
          }
          error={problemAt(problems, `${at}.permissions.${op}`)}
        />
      ))}
      {usesOwner && (
        <NativeSelect
          label="Owner column"
          description={authTable ? `A column referencing ${authTable.name}` : 'Needs an auth table'}
          data={[{ value: '', label: 'Choose a column…' }, ...ownerCandidates.map((c) => ({ value: c.name, label: c.name }))]}
          value={table.owner_column ?? ''}
          onChange={(e) =>
            dispatch({ type: 'setTableOptions', tableKey: table.key, options: { owner_column: e.currentTarget.value || undefined } })
          }
          error={problemAt(problems, `${at}.owner_column`)}
        />
      )}
    </SimpleGrid>
  );
}
