import { Button, CloseButton, Group, NativeSelect, Paper, Popover, Stack, Text, TextInput } from '@mantine/core';
import { IconFilter, IconPlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { FILTER_OPERATOR_LABELS, type ColumnFilter, type FilterOperator } from '../../../console/listQuery';
import type { GridColumn } from '../../../grid/columns';
import { filterLabel, filterValueProblem, filterableColumns, operatorsFor } from '../../../grid/filters';

interface FilterBarProps {
  columns: GridColumn[];
  filters: ColumnFilter[];
  onChange: (filters: ColumnFilter[]) => void;
}

/** Filters as removable chips, and a small form that adds one: column, operator, value. */
export function FilterBar({ columns, filters, onChange }: FilterBarProps) {
  const [opened, setOpened] = useState(false);
  return (
    <Group gap="xs" wrap="wrap" aria-label="Filters" role="group">
      {filters.map((filter, index) => (
        <Paper key={`${filter.column}-${filter.op}-${index}`} withBorder radius="xl" px="sm" py={2} data-testid="filter-chip">
          <Group gap={4} wrap="nowrap">
            <Text size="sm">{filterLabel(filter)}</Text>
            <CloseButton size="sm" aria-label={`Remove filter ${filterLabel(filter)}`} onClick={() => onChange(filters.filter((_, i) => i !== index))} />
          </Group>
        </Paper>
      ))}
      <Popover opened={opened} onChange={setOpened} position="bottom-start" trapFocus withArrow>
        <Popover.Target>
          <Button variant="default" size="sm" leftSection={<IconFilter size={16} aria-hidden />} onClick={() => setOpened((o) => !o)}>
            Add filter
          </Button>
        </Popover.Target>
        <Popover.Dropdown>
          <FilterForm
            columns={filterableColumns(columns)}
            onAdd={(filter) => {
              onChange([...filters, filter]);
              setOpened(false);
            }}
          />
        </Popover.Dropdown>
      </Popover>
      {filters.length > 1 && (
        <Button variant="subtle" size="sm" onClick={() => onChange([])}>
          Clear filters
        </Button>
      )}
    </Group>
  );
}

function FilterForm({ columns, onAdd }: { columns: GridColumn[]; onAdd: (filter: ColumnFilter) => void }) {
  const [columnName, setColumnName] = useState(columns[0]?.name ?? '');
  const column = columns.find((c) => c.name === columnName);
  const operators = operatorsFor(column?.type ?? '');
  const [op, setOp] = useState<FilterOperator>('eq');
  const [value, setValue] = useState('');
  const [touched, setTouched] = useState(false);
  const effectiveOp = operators.includes(op) ? op : 'eq';
  const choice = effectiveOp === 'null' || (column?.type === 'boolean' && effectiveOp !== 'in');
  const problem = filterValueProblem(column?.type ?? 'text', effectiveOp, value);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    event.stopPropagation();
    setTouched(true);
    if (!column || problem) return;
    onAdd({ column: column.name, op: effectiveOp, value });
  };

  return (
    <form onSubmit={submit} aria-label="New filter">
      <Stack gap="xs" w={260}>
        <NativeSelect label="Column" data={columns.map((c) => c.name)} value={columnName} onChange={(e) => setColumnName(e.currentTarget.value)} data-autofocus />
        <NativeSelect
          label="Operator"
          data={operators.map((o) => ({ value: o, label: FILTER_OPERATOR_LABELS[o] }))}
          value={effectiveOp}
          onChange={(e) => {
            setOp(e.currentTarget.value as FilterOperator);
            setValue('');
            setTouched(false);
          }}
        />
        {choice ? (
          <NativeSelect
            label="Value"
            data={[
              { value: '', label: 'Choose…' },
              { value: 'true', label: effectiveOp === 'null' ? 'true (empty)' : 'true' },
              { value: 'false', label: effectiveOp === 'null' ? 'false (not empty)' : 'false' },
            ]}
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            error={touched ? problem : undefined}
          />
        ) : (
          <TextInput
            label="Value"
            description={effectiveOp === 'in' ? 'comma-separated' : column?.type === 'timestamp' ? 'e.g. 2026-01-02 or 2026-01-02T03:04:05Z' : undefined}
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            error={touched ? problem : undefined}
          />
        )}
        <Button type="submit" size="xs" leftSection={<IconPlus size={14} aria-hidden />}>
          Apply filter
        </Button>
      </Stack>
    </form>
  );
}
