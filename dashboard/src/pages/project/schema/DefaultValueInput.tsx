import { NativeSelect, NumberInput, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { DraftColumn } from '../../../builder/state';

interface DefaultValueInputProps {
  column: DraftColumn;
  onChange: (value: unknown) => void;
  error?: string;
}

/** The default value, edited with an input that fits the column's type. */
export function DefaultValueInput({ column, onChange, error }: DefaultValueInputProps) {
  const description = 'Used when a create leaves the column out';
  switch (column.type) {
    case 'boolean':
      return (
        <NativeSelect
          label="Default"
          description={description}
          data={[
            { value: '', label: 'No default' },
            { value: 'true', label: 'true' },
            { value: 'false', label: 'false' },
          ]}
          value={column.default === undefined ? '' : String(column.default)}
          onChange={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value === 'true')}
          error={error}
        />
      );
    case 'enum':
      return (
        <NativeSelect
          label="Default"
          description={description}
          data={[{ value: '', label: 'No default' }, ...(column.values ?? []).filter(Boolean)]}
          value={typeof column.default === 'string' ? column.default : ''}
          onChange={(e) => onChange(e.currentTarget.value || undefined)}
          error={error}
        />
      );
    case 'decimal':
      // Kept as the string typed, so a default keeps every digit.
      return (
        <TextInput
          label="Default"
          description={description}
          value={typeof column.default === 'string' || typeof column.default === 'number' ? String(column.default) : ''}
          onChange={(e) => onChange(e.currentTarget.value.trim() === '' ? undefined : e.currentTarget.value.trim())}
          inputMode="decimal"
          placeholder="none"
          error={error}
        />
      );
    case 'integer':
    case 'number':
      return (
        <NumberInput
          label="Default"
          description={description}
          value={typeof column.default === 'number' ? column.default : ''}
          onChange={(v) => onChange(typeof v === 'number' ? v : undefined)}
          allowDecimal={column.type === 'number'}
          placeholder="none"
          error={error}
        />
      );
    case 'json':
      return <JsonDefaultInput value={column.default} onChange={onChange} error={error} />;
    default:
      return (
        <TextInput
          label="Default"
          description={description}
          value={typeof column.default === 'string' ? column.default : ''}
          onChange={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
          placeholder="none"
          error={error}
        />
      );
  }
}

function JsonDefaultInput({ value, onChange, error }: { value: unknown; onChange: (v: unknown) => void; error?: string }) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value));
  const [parseError, setParseError] = useState<string>();
  return (
    <Textarea
      label="Default (JSON)"
      classNames={{ input: 'mono' }}
      autosize
      minRows={1}
      value={text}
      onChange={(e) => {
        const next = e.currentTarget.value;
        setText(next);
        if (next.trim() === '') {
          setParseError(undefined);
          onChange(undefined);
          return;
        }
        try {
          onChange(JSON.parse(next));
          setParseError(undefined);
        } catch {
          setParseError('Not valid JSON yet');
        }
      }}
      error={parseError ?? error}
    />
  );
}
