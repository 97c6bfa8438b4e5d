import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { useReferenceOptionsQuery, type ReferenceTarget } from '../../../data/records/reference-options-query';
import { recordLabel } from '../../../grid/columns';
import type { SchemaTable } from '../../../schema/document';

interface ReferencePickerProps {
  projectId: string;
  credential: string;
  target: ReferenceTarget;
  targetTable: SchemaTable | undefined;
  label: string;
  value: string | number | null;
  currentLabel?: string;
  required: boolean;
  error?: string;
  onPick: (id: string | number | null) => void;
  onCancel: () => void;
  /** A form field (labelled, closed until used) rather than a cell's editor. */
  field?: { description?: string };
}

/**
 * A foreign-key cell's editor, or a record form's field: searches the
 * referenced table as the user types (its text columns, or the id) and
 * picks one of its records.
 */
export function ReferencePicker({ projectId, credential, target, targetTable, label, value, currentLabel, required, error, onPick, onCancel, field }: ReferencePickerProps) {
  const [term, setTerm] = useState('');
  const [debounced] = useDebouncedValue(term, 250);
  const options = useReferenceOptionsQuery(projectId, target, debounced, credential);
  const data = useMemo(() => {
    const items = (options.data ?? []).map((row) => ({ value: String(row.id), label: recordLabel(targetTable, row) }));
    if (value !== null && !items.some((i) => i.value === String(value))) items.unshift({ value: String(value), label: currentLabel ?? `#${String(value)}` });
    return items;
  }, [options.data, targetTable, value, currentLabel]);
  return (
    <Select
      aria-label={field ? undefined : label}
      label={field ? label : undefined}
      description={field?.description}
      withAsterisk={field ? required : undefined}
      placeholder={`Search ${target.table}`}
      data={data}
      value={value === null ? null : String(value)}
      searchable
      searchValue={term}
      onSearchChange={setTerm}
      // The server already matched the term: show its answer as it is.
      filter={({ options: all }) => all}
      nothingFoundMessage={options.isFetching ? 'Searching…' : `No ${target.table} match`}
      clearable={!required}
      defaultDropdownOpened={!field}
      autoFocus={!field}
      size={field ? 'sm' : 'xs'}
      error={error}
      comboboxProps={{ withinPortal: true }}
      onChange={(picked) => {
        if (picked === null) return onPick(null);
        const row = options.data?.find((r) => String(r.id) === picked);
        onPick(row ? row.id : picked);
      }}
      // Leaving without a pick keeps the value; a refusal stays shown until Escape.
      onBlur={() => !field && !error && onCancel()}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onCancel();
        }
      }}
    />
  );
}
