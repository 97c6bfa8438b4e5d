import { NativeSelect, NumberInput, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { DraftColumn } from '../../../builder/state';

interface DefaultValueInputProps {
  column: DraftColumn;
  onChange: (value: unknown) => void;
  error?: string;
  /** Which value it edits: the default (the usual) or the one-off backfill of existing rows. */
  field?: 'default' | 'backfill';
  label?: string;
  description?: string;
}

/** The default value (or the backfill), edited with an input that fits the column's type. */
export function DefaultValueInput({
  column,
  onChange,
  error,
  field = 'default',
  label = 'Default',
  description = 'Used when a create leaves the column out',
}: DefaultValueInputProps) {
  const current = field === 'backfill' ? column.backfill : column.default;
  const none = field === 'backfill' ? 'None' : 'No default';
  switch (column.type) {
    case 'boolean':
      return (
        <NativeSelect
          label={label}
          description={description}
          data={[
            { value: '', label: none },
            { value: 'true', label: 'true' },
            { value: 'false', label: 'false' },
          ]}
          value={current === undefined ? '' : String(current)}
          onChange={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value === 'true')}
          error={error}
        />
      );
    case 'enum':
      return (
        <NativeSelect
          label={label}
          description={description}
          data={[{ value: '', label: none }, ...(column.values ?? []).filter(Boolean)]}
          value={typeof current === 'string' ? current : ''}
          onChange={(e) => onChange(e.currentTarget.value || undefined)}
          error={error}
        />
      );
    case 'decimal':
      // Kept as the string typed, so a default keeps every digit.
      return (
        <TextInput
          label={label}
          description={description}
          value={typeof current === 'string' || typeof current === 'number' ? String(current) : ''}
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
          label={label}
          description={description}
          value={typeof current === 'number' ? current : ''}
          onChange={(v) => onChange(typeof v === 'number' ? v : undefined)}
          allowDecimal={column.type === 'number'}
          placeholder="none"
          error={error}
        />
      );
    case 'json':
      return <JsonDefaultInput label={label} value={current} onChange={onChange} error={error} />;
    default:
      return (
        <TextInput
          label={label}
          description={description}
          value={typeof current === 'string' ? current : ''}
          onChange={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
          placeholder="none"
          error={error}
        />
      );
  }
}

function JsonDefaultInput({ label, value, onChange, error }: { label: string; value: unknown; onChange: (v: unknown) => void; error?: string }) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value));
  const [parseError, setParseError] = useState<string>();
  return (
    <Textarea
      label={`${label} (JSON)`}
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
