import { ActionIcon, Anchor, Button, Group, NativeSelect, Pagination, Paper, Stack, Tabs, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconFileImport, IconPlus, IconSearch, IconTrash, IconX } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { KeyPicker } from '../../../components/KeyPicker';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { emptyListHelpers, listQueryPairs, type ColumnFilter, type SortKey } from '../../../console/listQuery';
import { usePublishedSchemaQuery } from '../../../data/schema/schema-versions-query';
import { useLiveRecords } from '../../../data/records/live-records';
import { useRecordsQuery, type RecordRow } from '../../../data/records/records-query';
import { gridColumns } from '../../../grid/columns';
import { filterPairs, filtersFromSearch } from '../../../grid/filters';
import { useKeyVault } from '../../../lib/keyVault';
import { forwardRelationName, type SchemaDocument } from '../../../schema/document';
import { tones } from '../../../tones';
import { useProjectId } from '../useProjectId';
import { BulkDeleteModal } from './BulkDeleteModal';
import { DataGrid } from './DataGrid';
import { DeleteRecordModal } from './DeleteRecordModal';
import { ExportMenu } from './ExportMenu';
import { FilterBar } from './FilterBar';
import { ImportModal } from './ImportModal';
import { LiveIndicator } from './LiveIndicator';
import { RecordFormModal } from './RecordFormModal';
import { useCan } from '../useProjectRole';

export function DataPage() {
  const projectId = useProjectId();
  const published = usePublishedSchemaQuery(projectId);
  const { table: tableParam } = useParams();
  const navigate = useNavigate();
  const [search] = useSearchParams();

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
      <PageHeader title="Data" description="Browse, edit, import and export records through the generated API, with one of your keys. Double-click a cell (or press Enter on it) to change it." />
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
            {/* A link to a referenced row changes the address's filters: start the browser afresh with them. */}
            {t.name === tableName && <TableBrowser key={`${tableName}?${search.toString()}`} projectId={projectId} schema={schema} tableName={tableName} initialFilters={filtersFromSearch(search)} />}
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
  initialFilters: ColumnFilter[];
}

function TableBrowser({ projectId, schema, tableName, initialFilters }: TableBrowserProps) {
  const table = schema.tables.find((t) => t.name === tableName)!;
  const { selected: key } = useKeyVault(projectId);
  const roleWrites = useCan('developer');
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(20);
  const [sort, setSort] = useState<SortKey | undefined>();
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search, 300);
  const [filters, setFilters] = useState<ColumnFilter[]>(initialFilters);
  const [selection, setSelection] = useState<ReadonlySet<string>>(new Set());
  const [editing, setEditing] = useState<RecordRow | 'new' | undefined>();
  const [deleting, setDeleting] = useState<RecordRow | undefined>();
  const [bulkDeleting, setBulkDeleting] = useState(false);
  const [importing, setImporting] = useState(false);

  const columns = useMemo(() => gridColumns(table), [table]);
  // Foreign keys show their record's name: the list embeds each referenced record.
  const includes = useMemo(() => table.columns.filter((c) => c.references && c.type !== 'password').map(forwardRelationName), [table]);
  // Filters, search and sort: the export takes them as they are, the list adds the page.
  const matching = useMemo(
    () => [
      ...listQueryPairs({ ...emptyListHelpers, sort: sort ? [sort] : [], search: debouncedSearch || undefined }),
      ...filterPairs(filters),
    ],
    [sort, debouncedSearch, filters],
  );
  const query = useMemo(
    () => [...listQueryPairs({ ...emptyListHelpers, page, limit, include: includes }), ...matching] as [string, string][],
    [page, limit, includes, matching],
  );
  const records = useRecordsQuery(projectId, tableName, query, key?.secret);
  const live = useLiveRecords(projectId, tableName, key?.secret, Boolean(table.realtime));
  // A viewer writes no data, whatever the key (docs/teams.md).
  const canWrite = key?.scope !== 'read' && roleWrites;
  const meta = records.data?.meta;

  if (!key) {
    return (
      <EmptyState title="Choose a key to see records">
        The Data page reads through the generated API like any client, so it needs an API key. Create one above (it is kept in
        this browser) or paste one you saved.
      </EmptyState>
    );
  }

  const narrowed = Boolean(debouncedSearch) || filters.length > 0;
  const toggleSort = (column: string) => {
    setPage(1);
    setSort((s) => (s?.column !== column ? { column, descending: false } : { column, descending: !s.descending }));
  };
  const changeFilters = (next: ColumnFilter[]) => {
    setFilters(next);
    setPage(1);
    setSelection(new Set());
  };
  const select = (ids: string[], on: boolean) =>
    setSelection((current) => {
      const next = new Set(current);
      for (const id of ids) if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <Stack gap="sm">
      <Group gap="xs" align="flex-end" wrap="wrap">
        <TextInput
          label="Search"
          description="in the text columns"
          leftSection={<IconSearch size={16} aria-hidden />}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          w={220}
        />
        <LiveIndicator live={live} tableName={tableName} />
        <Group gap="xs" ml="auto" wrap="wrap">
          <Button variant="default" leftSection={<IconFileImport size={16} aria-hidden />} onClick={() => setImporting(true)} disabled={!canWrite}>
            Import
          </Button>
          <ExportMenu projectId={projectId} tableName={tableName} query={matching} credential={key.secret} />
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setEditing('new')} disabled={!canWrite}>
            New record
          </Button>
        </Group>
      </Group>
      <FilterBar columns={columns} filters={filters} onChange={changeFilters} />
      {selection.size > 0 && (
        <Paper withBorder p="xs" role="region" aria-label="Selection">
          <Group gap="sm">
            <Text size="sm" fw={600}>
              {selection.size} selected
            </Text>
            <Button size="xs" color={tones.danger} leftSection={<IconTrash size={14} aria-hidden />} onClick={() => setBulkDeleting(true)}>
              Delete selected
            </Button>
            <ActionIcon variant="subtle" color="gray.8" aria-label="Clear the selection" onClick={() => setSelection(new Set())}>
              <IconX size={16} />
            </ActionIcon>
          </Group>
        </Paper>
      )}

      {records.error ? <ErrorAlert error={records.error} title={`Could not list ${tableName}`} /> : null}
      {records.isPending && !records.error && <LoadingState label={`Loading ${tableName}…`} />}
      {records.data && records.data.rows.length === 0 && (
        <EmptyState title={narrowed ? 'No records match' : `No ${tableName} yet`}>
          {narrowed ? 'Try another search or filter.' : 'Create the first record with New record, or import a file.'}
        </EmptyState>
      )}
      {records.data && records.data.rows.length > 0 && (
        <Paper withBorder>
          <DataGrid
            projectId={projectId}
            tableName={tableName}
            schema={schema}
            credential={key.secret}
            columns={columns}
            rows={records.data.rows}
            sort={sort}
            onSort={toggleSort}
            selected={selection}
            onSelect={select}
            onEdit={setEditing}
            onDelete={setDeleting}
            canWrite={canWrite}
          />
        </Paper>
      )}
      {meta && (
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed" role="status">
            {meta.total !== undefined ? `${meta.total_estimated ? 'about ' : ''}${meta.total} ${meta.total === 1 ? 'record' : 'records'}` : `${records.data?.rows.length ?? 0} shown`}
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
        tables={schema.tables}
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
      <BulkDeleteModal
        projectId={projectId}
        tableName={tableName}
        schema={schema}
        credential={key.secret}
        ids={[...selection]}
        opened={bulkDeleting}
        onClose={() => setBulkDeleting(false)}
        onDeleted={(count) => {
          setSelection(new Set());
          notifications.show({ color: tones.success, title: `Deleted ${count} ${count === 1 ? 'record' : 'records'}`, message: `from ${tableName}` });
        }}
      />
      <ImportModal
        projectId={projectId}
        table={table}
        credential={key.secret}
        opened={importing}
        onClose={() => setImporting(false)}
        onImported={(count) => notifications.show({ color: tones.success, title: `Imported ${count} ${count === 1 ? 'record' : 'records'}`, message: `into ${tableName}` })}
      />
    </Stack>
  );
}
