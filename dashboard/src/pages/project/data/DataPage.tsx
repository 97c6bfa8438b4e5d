import { Anchor, Button, Group, NativeSelect, Pagination, Paper, Stack, Tabs, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { KeyPicker } from '../../../components/KeyPicker';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { FILTER_OPERATORS, FILTER_OPERATOR_LABELS, emptyListHelpers, listQueryPairs, type ColumnFilter, type FilterOperator, type SortKey } from '../../../console/listQuery';
import { usePublishedSchemaQuery } from '../../../data/schema/schema-versions-query';
import { useRecordsQuery, type RecordRow } from '../../../data/records/records-query';
import { useKeyVault } from '../../../lib/keyVault';
import type { SchemaDocument } from '../../../schema/document';
import { useProjectId } from '../useProjectId';
import { DeleteRecordModal } from './DeleteRecordModal';
import { RecordFormModal } from './RecordFormModal';
import { RecordsTable } from './RecordsTable';

export function DataPage() {
  const projectId = useProjectId();
  const published = usePublishedSchemaQuery(projectId);
  const { table: tableParam } = useParams();
  const navigate = useNavigate();

  if (published.isPending) return <LoadingState label="Loading tables…" />;
  if (published.error) return <ErrorAlert error={published.error} title="The published schema could not be loaded" />;
  const schema = published.data;
  const firstTable = schema?.tables[0];
  if (!schema || !firstTable) {
    return (
      <Stack>
        <PageHeader title="Data" />
        <EmptyState title="No tables published yet" action={<Anchor component={Link} to={`/projects/${projectId}/generate`}>Generate the API</Anchor>}>
          Records are read and written through the generated API, so the tables appear here after a generate.
        </EmptyState>
      </Stack>
    );
  }
  const tableName = tableParam !== undefined && schema.tables.some((t) => t.name === tableParam) ? tableParam : firstTable.name;

  return (
    <Stack gap="md">
      <PageHeader title="Data" description="Browse and change records through the generated API, with one of your keys." />
      <Paper withBorder p="sm">
        <KeyPicker projectId={projectId} label="Use key" />
      </Paper>
      <Tabs value={tableName} onChange={(t) => t && navigate(`/projects/${projectId}/data/${t}`)}>
        <Tabs.List>
          {schema.tables.map((t) => (
            <Tabs.Tab key={t.name} value={t.name}>
              {t.name}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {schema.tables.map((t) => (
          <Tabs.Panel key={t.name} value={t.name} pt="sm">
            {t.name === tableName && <TableBrowser projectId={projectId} schema={schema} tableName={tableName} />}
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}

interface TableBrowserProps {
  projectId: string;
  schema: SchemaDocument;
  tableName: string;
}

function TableBrowser({ projectId, schema, tableName }: TableBrowserProps) {
  const table = schema.tables.find((t) => t.name === tableName)!;
  const { selected: key } = useKeyVault(projectId);
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(20);
  const [sort, setSort] = useState<SortKey | undefined>();
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search, 300);
  const [filter, setFilter] = useState<ColumnFilter>({ column: '', op: 'eq', value: '' });
  const [editing, setEditing] = useState<RecordRow | 'new' | undefined>();
  const [deleting, setDeleting] = useState<RecordRow | undefined>();

  const columns = useMemo(
    () => ['id', ...table.columns.filter((c) => c.type !== 'password').map((c) => c.name), 'created_at', 'updated_at'],
    [table],
  );
  const query = useMemo(
    () =>
      listQueryPairs({
        ...emptyListHelpers,
        page,
        limit,
        sort: sort ? [sort] : [],
        filters: filter.column && filter.value !== '' ? [filter] : [],
        search: debouncedSearch || undefined,
      }),
    [page, limit, sort, filter, debouncedSearch],
  );
  const records = useRecordsQuery(projectId, tableName, query, key?.secret);
  const canWrite = key?.scope !== 'read';
  const meta = records.data?.meta;

  if (!key) {
    return (
      <EmptyState title="Choose a key to see records">
        The Data page reads through the generated API like any client, so it needs an API key. Create one above (it is kept in
        this browser) or paste one you saved.
      </EmptyState>
    );
  }

  const toggleSort = (column: string) => {
    setPage(1);
    setSort((s) => (s?.column !== column ? { column, descending: false } : s.descending ? undefined : { column, descending: true }));
  };

  return (
    <Stack gap="sm">
      <Group gap="xs" align="flex-end" wrap="wrap">
        <TextInput
          label="Search"
          leftSection={<IconSearch size={16} aria-hidden />}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          w={220}
        />
        <NativeSelect
          label="Filter column"
          data={[{ value: '', label: 'No filter' }, ...columns.map((c) => ({ value: c, label: c }))]}
          value={filter.column}
          onChange={(e) => {
            setFilter({ ...filter, column: e.currentTarget.value });
            setPage(1);
          }}
        />
        <NativeSelect
          label="Operator"
          data={FILTER_OPERATORS.map((op) => ({ value: op, label: FILTER_OPERATOR_LABELS[op] }))}
          value={filter.op}
          onChange={(e) => setFilter({ ...filter, op: e.currentTarget.value as FilterOperator })}
          disabled={!filter.column}
        />
        <TextInput
          label="Value"
          value={filter.value}
          onChange={(e) => {
            setFilter({ ...filter, value: e.currentTarget.value });
            setPage(1);
          }}
          disabled={!filter.column}
        />
        <Button ml="auto" leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')} disabled={!canWrite}>
          New record
        </Button>
      </Group>

      {records.error ? <ErrorAlert error={records.error} title={`Could not list ${tableName}`} /> : null}
      {records.isPending && !records.error && <LoadingState label={`Loading ${tableName}…`} />}
      {records.data && records.data.rows.length === 0 && (
        <EmptyState title={debouncedSearch || filter.value ? 'No records match' : `No ${tableName} yet`}>
          {debouncedSearch || filter.value ? 'Try another search or filter.' : 'Create the first record with New record.'}
        </EmptyState>
      )}
      {records.data && records.data.rows.length > 0 && (
        <Paper withBorder>
          <RecordsTable
            columns={columns}
            rows={records.data.rows}
            sort={sort}
            onSort={toggleSort}
            onEdit={setEditing}
            onDelete={setDeleting}
            canWrite={canWrite}
          />
        </Paper>
      )}
      {meta && (
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed" role="status">
            {meta.total !== undefined ? `${meta.total_estimated ? 'about ' : ''}${meta.total} records` : `${records.data?.rows.length ?? 0} shown`}
            {records.isFetching ? ' · refreshing…' : ''}
          </Text>
          <Group gap="sm">
            <NativeSelect
              aria-label="Records per page"
              data={['10', '20', '50', '100']}
              value={String(limit)}
              onChange={(e) => {
                setLimit(Number(e.currentTarget.value));
                setPage(1);
              }}
            />
            {(meta.total_pages ?? 1) > 1 && (
              <Pagination total={meta.total_pages ?? 1} value={page} onChange={setPage} size="sm" getControlProps={(c) => ({ 'aria-label': `${c} page` })} />
            )}
          </Group>
        </Group>
      )}
      <RecordFormModal
        projectId={projectId}
        table={table}
        credential={key.secret}
        record={editing === 'new' ? undefined : editing}
        opened={editing !== undefined}
        onClose={() => setEditing(undefined)}
      />
      <DeleteRecordModal
        projectId={projectId}
        tableName={tableName}
        schema={schema}
        credential={key.secret}
        record={deleting}
        onClose={() => setDeleting(undefined)}
      />
    </Stack>
  );
}
