import { FileInput, SimpleGrid, TextInput } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import type { FormBody, FormField } from '../../../console/formBody';
import { acceptOf, chosenFilesProblem, fileRulesText } from '../../../grid/files';
import { columnTypeInfo } from '../../../schema/document';

interface FormBodyEditorProps {
  fields: FormField[];
  value: FormBody;
  onChange: (value: FormBody) => void;
}

/**
 * A multipart/form-data body: a text input per field (its part's text as
 * the server reads it) and a file input per file column.
 */
export function FormBodyEditor({ fields, value, onChange }: FormBodyEditorProps) {
  const setText = (name: string, text: string) => onChange({ ...value, values: { ...value.values, [name]: text } });
  const setFiles = (name: string, files: File[]) => onChange({ ...value, files: { ...value.files, [name]: files } });
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm" data-testid="form-body">
      {fields.map((field) =>
        field.kind === 'text' ? (
          <TextInput
            key={field.name}
            label={field.name}
            description={textDescription(field)}
            required={field.column?.required}
            value={value.values[field.name] ?? ''}
            onChange={(e) => setText(field.name, e.currentTarget.value)}
            autoComplete="off"
          />
        ) : (
          <FileField key={field.name} field={field} files={value.files[field.name] ?? []} onChange={(files) => setFiles(field.name, files)} />
        ),
      )}
    </SimpleGrid>
  );
}

/** What a field's text is read as: the text itself, or JSON for numbers, booleans and json. */
function textDescription(field: FormField): string {
  const column = field.column;
  const literal = column ? columnTypeInfo(column.type)?.literal : undefined;
  const asJson = column !== undefined && (literal !== 'string' || column.type === 'json');
  const read = asJson ? `JSON (${column.type})` : 'text';
  return `${column?.description ? `${column.description}. ` : ''}Sent as ${read}; left empty, not sent`;
}

interface FileFieldProps {
  field: FormField;
  files: File[];
  onChange: (files: File[]) => void;
}

function FileField({ field, files, onChange }: FileFieldProps) {
  const many = field.kind === 'files';
  const column = field.column;
  const common = {
    label: field.name,
    description: column ? fileRulesText(column) : 'Any file',
    required: column?.required,
    // Shown, not enforced: the server's answer is what the tester is for.
    error: column ? chosenFilesProblem(column, files) : undefined,
    accept: column ? acceptOf(column) : undefined,
    clearable: true,
    clearButtonProps: { 'aria-label': `Clear the ${many ? 'files' : 'file'} chosen for ${field.name}` },
    leftSection: <IconUpload size={16} aria-hidden />,
    // Mantine's placeholder grey is too faint (2:1) for text a person has to read.
    styles: { placeholder: { color: 'var(--mantine-color-gray-7)' } },
    placeholder: many ? 'Choose files' : 'Choose a file',
  };
  return many ? (
    <FileInput {...common} multiple value={files} onChange={onChange} />
  ) : (
    <FileInput {...common} value={files[0] ?? null} onChange={(file) => onChange(file ? [file] : [])} />
  );
}
