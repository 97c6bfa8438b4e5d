import { Button, Checkbox, Group, NativeSelect, NumberInput, SimpleGrid, Stack, TagsInput, TextInput } from '@mantine/core';
import { IconPhoto } from '@tabler/icons-react';
import { useState, type Dispatch } from 'react';
import { constraintsFor } from '../../../builder/columnRules';
import { DEFAULT_MAX_FILES, IMAGES_ONLY, MAX_MAX_FILES, SIZE_UNITS, parseMediaTypes, sizeParts, toBytes, unitBytes, type SizeUnit } from '../../../builder/fileSettings';
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
  'max_size',
  'mime_types',
  'max_files',
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

      {allowed.has('max_size') && (
        <SimpleGrid cols={{ base: 1, xs: 2 }}>
          <MaxSizeInput name={name} bytes={column.max_size} onChange={(max_size) => patch({ max_size })} error={err('max_size')} />
          {allowed.has('max_files') && (
            <NumberInput
              label="Max files"
              description={`How many files one record holds, 1 to ${MAX_MAX_FILES}`}
              value={column.max_files ?? ''}
              onChange={(v) => patch({ max_files: typeof v === 'number' ? v : v === '' ? undefined : Number(v) })}
              allowDecimal={false}
              allowNegative={false}
              placeholder={`${DEFAULT_MAX_FILES} (the default)`}
              error={err('max_files')}
            />
          )}
        </SimpleGrid>
      )}

      {allowed.has('mime_types') && (
        <Stack gap={4}>
          <TagsInput
            label="Allowed types"
            description="Media types such as image/png, or image/* for any image; the server tells a file's type from its content. None: any type."
            placeholder={column.mime_types?.length ? undefined : 'Any type'}
            value={column.mime_types ?? []}
            onChange={(types) => patch({ mime_types: parseMediaTypes(types.join(',')) })}
            error={err('mime_types')}
            clearable
            classNames={{ input: 'mono' }}
          />
          <Group gap="xs">
            <Button
              variant="light"
              size="compact-sm"
              leftSection={<IconPhoto size={14} aria-hidden />}
              onClick={() => patch({ mime_types: [...IMAGES_ONLY] })}
              aria-label={`Images only (${name})`}
              disabled={column.mime_types?.length === 1 && column.mime_types[0] === IMAGES_ONLY[0]}
            >
              Images only
            </Button>
          </Group>
        </Stack>
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

interface MaxSizeInputProps {
  name: string;
  bytes: number | undefined;
  onChange: (bytes: number | undefined) => void;
  error?: string;
}

/** A file column's max_size, typed as an amount and a unit and kept in bytes. */
function MaxSizeInput({ name, bytes, onChange, error }: MaxSizeInputProps) {
  // The unit is the field's own: 1.5 MB stays 1.5 MB, not 1,536 KB.
  const [unit, setUnit] = useState<SizeUnit>(() => (bytes === undefined ? 'MB' : sizeParts(bytes).unit));
  const amount = bytes === undefined ? '' : bytes / unitBytes(unit);
  return (
    <NumberInput
      label="Max size per file"
      description="The server's own limit still applies"
      value={amount}
      onChange={(v) => {
        const n = typeof v === 'number' ? v : v === '' ? undefined : Number(v);
        onChange(n === undefined || Number.isNaN(n) ? undefined : toBytes(n, unit));
      }}
      allowNegative={false}
      decimalScale={unit === 'bytes' ? 0 : 3}
      placeholder="no limit"
      error={error}
      rightSectionWidth={84}
      rightSectionPointerEvents="all"
      rightSection={
        <NativeSelect
          aria-label={`Max size unit (${name})`}
          data={[...SIZE_UNITS]}
          value={unit}
          onChange={(e) => {
            const next = e.currentTarget.value as SizeUnit;
            setUnit(next);
            // The amount stays as typed: 5 KB becomes 5 MB.
            if (typeof amount === 'number') onChange(toBytes(amount, next));
          }}
          rightSectionWidth={24}
          styles={{ input: { width: 84, marginRight: -2, borderTopLeftRadius: 0, borderBottomLeftRadius: 0, fontWeight: 500 } }}
        />
      }
    />
  );
}
