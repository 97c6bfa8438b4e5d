import { Checkbox, Group, NativeSelect, NumberInput, SimpleGrid, Stack, TagsInput, TextInput } from '@mantine/core';
import type { Dispatch } from 'react';
import { constraintsFor } from '../../../builder/columnRules';
import type { BuilderAction, DraftColumn, DraftTable } from '../../../builder/state';
import { problemAt, type SchemaProblems } from '../../../builder/validation';
import { ON_DELETE_ACTIONS, forwardRelationName, type OnDeleteAction, type SchemaColumn } from '../../../schema/document';
import { DefaultValueInput } from './DefaultValueInput';

export const CONSTRAINT_FIELDS = [
  'required',
  'unique',
  'index',
  'searchable',
  'html',
  'default',
  'min',
  'max',
  'min_length',
  'max_length',
  'pattern',
  'values',
  'references',
  'relation',
  'reverse_relation',
  'description',
];

interface ColumnConstraintsProps {
  column: DraftColumn;
  table: DraftTable;
  tables: DraftTable[];
  path: string;
  problems: SchemaProblems;
  dispatch: Dispatch<BuilderAction>;
}

const FLAGS: { key: 'required' | 'unique' | 'index' | 'searchable' | 'html'; label: string; hint: string }[] = [
  { key: 'required', label: 'Required', hint: 'every record must have a value' },
  { key: 'unique', label: 'Unique', hint: 'no two records share a value' },
  { key: 'index', label: 'Index', hint: 'faster filters and sorts' },
  { key: 'searchable', label: 'Searchable', hint: 'indexed for ?search=' },
  { key: 'html', label: 'Keep HTML', hint: 'otherwise markup is stripped' },
];

const ON_DELETE_LABELS: Record<OnDeleteAction, string> = {
  restrict: 'Restrict: refuse to delete the target while referenced',
  cascade: 'Cascade: delete these records with the target',
  set_null: 'Set null: clear this column',
};

/** The constraints of CONTRACT 4.1 that apply to the column's type. */
export function ColumnConstraints({ column, table, tables, path, problems, dispatch }: ColumnConstraintsProps) {
  const allowed = constraintsFor(column.type, Boolean(column.references));
  const patch = (change: Partial<SchemaColumn>) =>
    dispatch({ type: 'updateColumn', tableKey: table.key, columnKey: column.key, patch: change });
  const err = (field: string) => problemAt(problems, `${path}.${field}`);
  const name = column.name || 'this column';

  return (
    <Stack gap="sm" mt="sm" pl={34} aria-label={`Constraints of ${name}`}>
      <Group gap="md">
        {FLAGS.filter((f) => allowed.has(f.key)).map((flag) => (
          <Checkbox
            key={flag.key}
            label={flag.label}
            title={flag.hint}
            aria-label={`${flag.label} (${name})`}
            checked={Boolean(column[flag.key])}
            onChange={(e) => patch({ [flag.key]: e.currentTarget.checked || undefined })}
            error={err(flag.key)}
          />
        ))}
      </Group>

      {allowed.has('values') && (
        <TagsInput
          label="Allowed values"
          description="Type a value and press Enter"
          value={column.values ?? []}
          onChange={(values) => patch({ values })}
          error={err('values')}
          clearable
        />
      )}

      {(allowed.has('min') || allowed.has('min_length')) && (
        <SimpleGrid cols={2}>
          {allowed.has('min') && <OptionalNumber label="Minimum" value={column.min} onChange={(min) => patch({ min })} error={err('min')} />}
          {allowed.has('max') && <OptionalNumber label="Maximum" value={column.max} onChange={(max) => patch({ max })} error={err('max')} />}
          {allowed.has('min_length') && (
            <OptionalNumber label="Min length" integer value={column.min_length} onChange={(min_length) => patch({ min_length })} error={err('min_length')} />
          )}
          {allowed.has('max_length') && (
            <OptionalNumber label="Max length" integer value={column.max_length} onChange={(max_length) => patch({ max_length })} error={err('max_length')} />
          )}
        </SimpleGrid>
      )}

      {allowed.has('pattern') && (
        <TextInput
          label="Pattern"
          description="A regular expression every value must match"
          classNames={{ input: 'mono' }}
          value={column.pattern ?? ''}
          onChange={(e) => patch({ pattern: e.currentTarget.value || undefined })}
          error={err('pattern')}
          spellCheck={false}
        />
      )}

      {allowed.has('default') && <DefaultValueInput column={column} onChange={(value) => patch({ default: value })} error={err('default')} />}

      {allowed.has('references') && (
        <SimpleGrid cols={{ base: 1, xs: 2 }}>
          <NativeSelect
            label="References"
            description="Makes this a foreign key to a table's id"
            data={[{ value: '', label: 'Nothing (plain value)' }, ...tables.map((t) => ({ value: t.name, label: t.name || '(unnamed)' }))]}
            value={column.references?.table ?? ''}
            onChange={(e) =>
              dispatch({
                type: 'setReference',
                tableKey: table.key,
                columnKey: column.key,
                reference: e.currentTarget.value ? { table: e.currentTarget.value, on_delete: column.references?.on_delete } : undefined,
              })
            }
            error={err('references')}
          />
          {column.references && (
            <NativeSelect
              label="On delete of the target"
              data={ON_DELETE_ACTIONS.map((a) => ({ value: a, label: ON_DELETE_LABELS[a] }))}
              value={column.references.on_delete ?? 'restrict'}
              onChange={(e) =>
                patch({ references: { ...column.references!, on_delete: e.currentTarget.value as OnDeleteAction } })
              }
            />
          )}
        </SimpleGrid>
      )}

      {column.references && (
        <SimpleGrid cols={{ base: 1, xs: 2 }}>
          <TextInput
            label="Relation name here"
            description={`include=${column.relation || forwardRelationName({ ...column, relation: undefined })} on ${table.name}`}
            placeholder={forwardRelationName({ ...column, relation: undefined })}
            value={column.relation ?? ''}
            onChange={(e) => patch({ relation: e.currentTarget.value || undefined })}
            error={err('relation')}
          />
          <TextInput
            label="Relation name on target"
            description={`include=${column.reverse_relation || table.name} on ${column.references.table}`}
            placeholder={table.name}
            value={column.reverse_relation ?? ''}
            onChange={(e) => patch({ reverse_relation: e.currentTarget.value || undefined })}
            error={err('reverse_relation')}
          />
        </SimpleGrid>
      )}

      <TextInput
        label="Description"
        description="Shown in the API docs"
        value={column.description ?? ''}
        onChange={(e) => patch({ description: e.currentTarget.value || undefined })}
      />
    </Stack>
  );
}

interface OptionalNumberProps {
  label: string;
  value: number | undefined;
  onChange: (value: number | undefined) => void;
  error?: string;
  integer?: boolean;
}

function OptionalNumber({ label, value, onChange, error, integer }: OptionalNumberProps) {
  return (
    <NumberInput
      label={label}
      value={value ?? ''}
      onChange={(v) => onChange(typeof v === 'number' ? v : v === '' ? undefined : Number(v))}
      allowDecimal={!integer}
      allowNegative={!integer}
      error={error}
      placeholder="none"
    />
  );
}
