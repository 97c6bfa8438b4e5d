import { ActionIcon, Button, Checkbox, Group, MultiSelect, NativeSelect, NumberInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import { FILTER_OPERATORS, FILTER_OPERATOR_LABELS, type FilterOperator, type ListHelpers } from '../../../console/listQuery';

interface ListHelpersFormProps {
  value: ListHelpers;
  onChange: (value: ListHelpers) => void;
  columns: string[];
  relations: string[];
}

/** Page, limit, sort, filters, search, include and fields for a list request. */
export function ListHelpersForm({ value, onChange, columns, relations }: ListHelpersFormProps) {
  const set = (patch: Partial<ListHelpers>) => onChange({ ...value, ...patch });
  const sort = value.sort[0];
  const columnOptions = [{ value: '', label: 'Choose a column' }, ...columns.map((c) => ({ value: c, label: c }))];

  return (
    <Stack gap="sm" aria-label="List parameters">
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
        <NumberInput label="Page" min={1} value={value.page ?? ''} onChange={(v) => set({ page: typeof v === 'number' ? v : undefined })} placeholder="1" />
        <NumberInput label="Limit" min={1} max={100} value={value.limit ?? ''} onChange={(v) => set({ limit: typeof v === 'number' ? v : undefined })} placeholder="20" />
        <NativeSelect
          label="Sort by"
          data={[{ value: '', label: 'id (default)' }, ...columns.map((c) => ({ value: c, label: c }))]}
          value={sort?.column ?? ''}
          onChange={(e) => set({ sort: e.currentTarget.value ? [{ column: e.currentTarget.value, descending: sort?.descending ?? false }] : [] })}
        />
        <Checkbox
          label="Descending"
          mt={30}
          disabled={!sort}
          checked={Boolean(sort?.descending)}
          onChange={(e) => sort && set({ sort: [{ ...sort, descending: e.currentTarget.checked }] })}
        />
      </SimpleGrid>

      <Stack gap={6}>
        <Group justify="space-between">
          <Text size="sm" fw={500}>
            Filters
          </Text>
          <Button
            size="compact-sm"
            variant="light"
            leftSection={<IconPlus size={14} />}
            onClick={() => set({ filters: [...value.filters, { column: columns[0] ?? '', op: 'eq', value: '' }] })}
          >
            Add filter
          </Button>
        </Group>
        {value.filters.map((filter, i) => {
          const update = (patch: Partial<typeof filter>) =>
            set({ filters: value.filters.map((f, j) => (j === i ? { ...f, ...patch } : f)) });
          return (
            <Group key={i} gap="xs" wrap="nowrap" align="flex-end">
              <NativeSelect aria-label={`Filter ${i + 1} column`} data={columnOptions} value={filter.column} onChange={(e) => update({ column: e.currentTarget.value })} style={{ flex: 1 }} />
              <NativeSelect
                aria-label={`Filter ${i + 1} operator`}
                data={FILTER_OPERATORS.map((op) => ({ value: op, label: FILTER_OPERATOR_LABELS[op] }))}
                value={filter.op}
                onChange={(e) => update({ op: e.currentTarget.value as FilterOperator })}
                w={150}
              />
              <TextInput aria-label={`Filter ${i + 1} value`} value={filter.value} onChange={(e) => update({ value: e.currentTarget.value })} style={{ flex: 1 }} />
              <ActionIcon variant="subtle" color="gray.8" mb={4} aria-label={`Remove filter ${i + 1}`} onClick={() => set({ filters: value.filters.filter((_, j) => j !== i) })}>
                <IconX size={16} />
              </ActionIcon>
            </Group>
          );
        })}
        <TextInput
          label="Filter expression"
          description="e.g. age >= 18 and (name ~ 'ann' or is_active = true)"
          classNames={{ input: 'mono' }}
          value={value.expression ?? ''}
          onChange={(e) => set({ expression: e.currentTarget.value || undefined })}
          spellCheck={false}
        />
      </Stack>

      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <TextInput label="Search" description="text, email, url and enum columns" value={value.search ?? ''} onChange={(e) => set({ search: e.currentTarget.value || undefined })} />
        <MultiSelect
          label="Include related"
          description={relations.length ? 'embed related records' : 'no relations on this table'}
          data={relations}
          value={value.include}
          onChange={(include) => set({ include })}
          disabled={!relations.length}
          searchable
          clearable
        />
        <MultiSelect label="Only fields" description="id always comes back" data={columns} value={value.fields} onChange={(fields) => set({ fields })} searchable clearable />
      </SimpleGrid>
    </Stack>
  );
}
