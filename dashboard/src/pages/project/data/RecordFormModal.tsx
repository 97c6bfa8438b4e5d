import { Button, FileInput, Group, Modal, NativeSelect, NumberInput, PasswordInput, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { IconArrowBackUp, IconTrash, IconUpload } from '@tabler/icons-react';
import { useEffect, useState, type FormEvent } from 'react';
import { isApiError } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { bodyFieldName } from '../../../console/exampleRecord';
import { editableColumns, formToBody, initialFormValues, type FormValues } from '../../../console/recordForm';
import { useRecordSaveMutation } from '../../../data/records/record-save-mutation';
import type { RecordRow } from '../../../data/records/records-query';
import { isUploadColumn, maxLengthOf, type SchemaColumn, type SchemaTable } from '../../../schema/document';
import { labelColumns } from '../../../grid/columns';
import { acceptOf, chosenFilesProblem, fileRulesText, recordWriteBody, storedFiles, uploadColumns, type FileChanges } from '../../../grid/files';
import { tones } from '../../../tones';
import { FileList } from './FilePreview';
import { ReferencePicker } from './ReferencePicker';

interface RecordFormModalProps {
  projectId: string;
  table: SchemaTable;
  /** Every published table, for the reference pickers' targets. */
  tables: SchemaTable[];
  credential: string;
  /** The record to edit; undefined to create one. */
  record: RecordRow | undefined;
  opened: boolean;
  onClose: () => void;
}

export function RecordFormModal({ projectId, table, tables, credential, record, opened, onClose }: RecordFormModalProps) {
  const [values, setValues] = useState<FormValues>({});
  const [original, setOriginal] = useState<FormValues | undefined>();
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  // Files chosen per file field (they replace the record's), or null to remove them.
  const [fileChanges, setFileChanges] = useState<FileChanges>({});
  const save = useRecordSaveMutation();
  const { reset } = save;
  useEffect(() => {
    if (opened) reset();
  }, [opened, reset]);

  useEffect(() => {
    if (!opened) return;
    const start = initialFormValues(table, record);
    setValues(start);
    setOriginal(record ? start : undefined);
    setLocalErrors({});
    setFileChanges({});
  }, [opened, record, table]);

  const serverErrors = isApiError(save.error) ? save.error.details : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { body, errors } = formToBody(table, values, original);
    for (const column of uploadColumns(table)) {
      const change = fileChanges[column.name];
      const problem = change ? chosenFilesProblem(column, change) : undefined;
      const held = record ? storedFiles(record[column.name]).length > 0 : false;
      if (problem) errors[column.name] = problem;
      else if (column.required && (change === null || (!change?.length && !held))) errors[column.name] = 'is required';
    }
    setLocalErrors(errors);
    if (Object.keys(errors).length) return;
    // With a file chosen the write is multipart/form-data; otherwise JSON, a removed file as null.
    const payload = recordWriteBody(table, body, fileChanges);
    save.mutate({ projectId, table: table.name, id: record?.id, values: payload, credential }, { onSuccess: onClose });
  };
  const changeFiles = (field: string, change: File[] | null | undefined) => {
    setFileChanges((current) => {
      const next = { ...current };
      if (change === undefined) delete next[field];
      else next[field] = change;
      return next;
    });
    setLocalErrors(({ [field]: _dropped, ...rest }) => rest);
  };

  return (
    <Modal opened={opened} onClose={onClose} title={record ? `Edit ${table.name} #${record.id}` : `New record in ${table.name}`} size="lg">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {save.error ? <ErrorAlert error={save.error} title="The record was not saved" /> : null}
          {editableColumns(table).map((column) => {
            const field = bodyFieldName(column);
            const error = localErrors[field] ?? serverErrors[field] ?? serverErrors[column.name];
            if (isUploadColumn(column)) {
              return (
                <FileField
                  key={field}
                  projectId={projectId}
                  credential={credential}
                  column={column}
                  current={record?.[column.name]}
                  change={fileChanges[field]}
                  error={error}
                  onChange={(change) => changeFiles(field, change)}
                />
              );
            }
            if (column.references) {
              const targetTable = tables.find((t) => t.name === column.references?.table);
              const picked = values[field] ?? '';
              return (
                <ReferencePicker
                  key={field}
                  projectId={projectId}
                  credential={credential}
                  target={{ table: column.references.table, textColumns: labelColumns(targetTable), idIsInteger: (targetTable?.id_type ?? 'integer') === 'integer' }}
                  targetTable={targetTable}
                  label={field}
                  value={picked === '' ? null : picked}
                  required={Boolean(column.required)}
                  error={error}
                  field={{ description: column.description ?? `a record in ${column.references.table}` }}
                  onPick={(id) => setValues((current) => ({ ...current, [field]: id === null ? '' : String(id) }))}
                  onCancel={() => undefined}
                />
              );
            }
            return (
              <FieldInput
                key={field}
                column={column}
                field={field}
                value={values[field] ?? ''}
                editing={Boolean(record)}
                error={error}
                onChange={(v) => setValues((current) => ({ ...current, [field]: v }))}
              />
            );
          })}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {record ? 'Save changes' : 'Create record'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

interface FileFieldProps {
  projectId: string;
  credential: string;
  column: SchemaColumn;
  /** The record's value of the column, when editing. */
  current: unknown;
  /** Files chosen to replace it, null to remove it, undefined to keep it. */
  change: File[] | null | undefined;
  error?: string;
  onChange: (change: File[] | null | undefined) => void;
}

/**
 * A file or files column in the record form: the files the record holds
 * (each previewed and downloadable), an input that chooses new ones (a
 * files column's choice replaces its whole list), and Remove, which
 * saves the column as null.
 */
function FileField({ projectId, credential, column, current, change, error, onChange }: FileFieldProps) {
  const many = column.type === 'files';
  const held = storedFiles(current);
  const removing = change === null;
  const chosen = change ?? [];
  const noun = many ? 'files' : 'file';
  const common = {
    label: column.name,
    description: column.description ? `${column.description} (${fileRulesText(column)})` : fileRulesText(column),
    required: column.required && held.length === 0,
    error,
    accept: acceptOf(column),
    clearable: true,
    clearButtonProps: { 'aria-label': `Clear the ${many ? 'files' : 'file'} chosen for ${column.name}` },
    leftSection: <IconUpload size={16} aria-hidden />,
    // Mantine's placeholder grey is too faint (2:1) for text a person has to read.
    styles: { placeholder: { color: 'var(--mantine-color-gray-7)' } },
    placeholder: held.length > 0 ? `Choose ${many ? 'files' : 'a file'} to replace ${held.length === 1 ? 'it' : 'them'}` : `Choose ${many ? 'files' : 'a file'}`,
  };
  return (
    <Stack gap={6} data-testid={`file-field-${column.name}`}>
      {many ? (
        <FileInput {...common} multiple value={chosen} onChange={(files) => onChange(files.length > 0 ? files : undefined)} />
      ) : (
        <FileInput {...common} value={chosen[0] ?? null} onChange={(file) => onChange(file ? [file] : undefined)} />
      )}
      {held.length > 0 && (
        <Group gap="xs" wrap="wrap" align="center">
          <Text size="xs" c="dimmed">
            {removing ? 'Removed when you save:' : chosen.length > 0 ? 'Replaced when you save:' : 'Now:'}
          </Text>
          <FileList projectId={projectId} credential={credential} value={current} size={48} />
          {removing ? (
            <Button variant="subtle" size="compact-sm" leftSection={<IconArrowBackUp size={14} aria-hidden />} onClick={() => onChange(undefined)}>
              Keep {noun}
            </Button>
          ) : (
            !column.required && (
              <Button
                variant="subtle"
                color={tones.danger}
                size="compact-sm"
                leftSection={<IconTrash size={14} aria-hidden />}
                onClick={() => onChange(null)}
                aria-label={`Remove ${noun} (${column.name})`}
              >
                Remove {noun}
              </Button>
            )
          )}
        </Group>
      )}
    </Stack>
  );
}

interface FieldInputProps {
  column: SchemaColumn;
  field: string;
  value: string;
  editing: boolean;
  error?: string;
  onChange: (value: string) => void;
}

function FieldInput({ column, field, value, editing, error, onChange }: FieldInputProps) {
  const common = {
    label: field,
    description: column.description ?? (column.references ? `id of a record in ${column.references.table}` : undefined),
    required: column.required && !(editing && column.type === 'password'),
    error,
  };
  switch (column.type) {
    case 'password':
      return (
        <PasswordInput
          {...common}
          description={editing ? 'Leave blank to keep the current password' : common.description}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
          autoComplete="new-password"
        />
      );
    case 'decimal':
      // A text box: a number input would round the digits a double cannot hold.
      return (
        <TextInput
          {...common}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
          inputMode="decimal"
          className="mono"
        />
      );
    case 'integer':
    case 'number':
      return (
        <NumberInput
          {...common}
          value={value}
          onChange={(v) => onChange(String(v))}
          allowDecimal={column.type === 'number'}
          // Never clamped: a value out of bounds is refused with the
          // cell editor's words, not silently changed (issue 37, item 5).
          // The bounds are not given to Mantine at all: with them it still
          // clamps a typed value on blur (its trimming of leading zeroes
          // clamps too), whatever clampBehavior says.
          clampBehavior="none"
        />
      );
    case 'boolean':
      return (
        <NativeSelect
          {...common}
          data={[
            { value: '', label: column.required ? 'Choose…' : 'Not set' },
            { value: 'true', label: 'true' },
            { value: 'false', label: 'false' },
          ]}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'enum':
      return (
        <NativeSelect
          {...common}
          data={[{ value: '', label: column.required ? 'Choose…' : 'Not set' }, ...(column.values ?? [])]}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'json':
      return <Textarea {...common} classNames={{ input: 'mono' }} autosize minRows={2} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'date':
      return <TextInput {...common} type="date" value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'timestamp':
      return <TextInput {...common} placeholder="2025-01-01T12:00:00Z" value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
    default:
      return (
        <TextInput
          {...common}
          type={column.type === 'email' ? 'email' : column.type === 'url' ? 'url' : 'text'}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
          maxLength={maxLengthOf(column)}
        />
      );
  }
}
