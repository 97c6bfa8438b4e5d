import { Badge, Button, Code, Group, Paper, Select, Stack, Switch, Table, Text, TextInput, UnstyledButton } from '@mantine/core';
import { IconListDetails } from '@tabler/icons-react';
import { Fragment, useState } from 'react';
import { useSearchParams } from 'react-router';
import { isApiError } from '../../../api/client';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import { MethodBadge } from '../../../components/MethodBadge';
import { PageHeader } from '../../../components/PageHeader';
import { type LogEntry, type LogFilters, useLogsQuery } from '../../../data/logs/logs-query';
import { formatMs } from '../../../lib/format';
import { tones } from '../../../tones';
import { useProjectId } from '../useProjectId';

const FILTER_KEYS = ['status', 'method', 'path', 'credential', 'request_id', 'since'] as const;

const STATUS_OPTIONS = [
  { value: '', label: 'Any status' },
  { value: 'error', label: 'Errors (4xx, 5xx)' },
  { value: '2xx', label: '2xx' },
  { value: '4xx', label: '4xx' },
  { value: '5xx', label: '5xx' },
  { value: '429', label: '429 rate limited' },
];
const METHOD_OPTIONS = ['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => ({ value: m, label: m || 'Any method' }));
const CREDENTIAL_OPTIONS = [
  { value: '', label: 'Any credential' },
  { value: 'key', label: 'API keys' },
  { value: 'user', label: 'End users' },
  { value: 'dashboard', label: 'This dashboard' },
  { value: 'none', label: 'No credential' },
];
const SINCE_OPTIONS = [
  { value: '', label: 'Everything kept' },
  { value: '15m', label: 'Last 15 minutes' },
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
];

/** The filters in the page's URL: a link (from Analytics' top endpoints) opens the log already filtered. */
function useFilters(): [LogFilters, (key: keyof LogFilters, value: string) => void] {
  const [params, setParams] = useSearchParams();
  const filters: LogFilters = {};
  for (const key of FILTER_KEYS) {
    const v = params.get(key);
    if (v) filters[key] = v;
  }
  const set = (key: keyof LogFilters, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  return [filters, set];
}

export function LogsPage() {
  const projectId = useProjectId();
  const [filters, setFilter] = useFilters();
  // The text filters apply on Enter or blur, not on every keystroke.
  const [draft, setDraft] = useState({ path: filters.path ?? '', request_id: filters.request_id ?? '' });
  const [tail, setTail] = useState(false);
  const logs = useLogsQuery(projectId, filters, tail);
  const entries = logs.data?.pages.flatMap((p) => p.entries) ?? [];
  const retention = logs.data?.pages[0]?.retentionHours;
  const off = isApiError(logs.error) && logs.error.status === 404;

  const textFilter = (key: 'path' | 'request_id', label: string, placeholder: string) => (
    <TextInput
      label={label}
      placeholder={placeholder}
      value={draft[key]}
      onChange={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })}
      onBlur={() => setFilter(key, draft[key].trim())}
      onKeyDown={(e) => {
        if (e.key === 'Enter') setFilter(key, draft[key].trim());
      }}
      classNames={{ input: 'mono' }}
      w={{ base: '100%', sm: 200 }}
    />
  );

  return (
    <Stack gap="md">
      <PageHeader
        title="Logs"
        description={`Every request to the generated API: what was asked, what was answered and why it failed.${
          retention ? ` Kept for ${retention >= 48 ? `${Math.round(retention / 24)} days` : `${retention} hours`} on your plan.` : ''
        } Credentials and request bodies are never logged.`}
        actions={<Switch label="Live tail" checked={tail} onChange={(e) => setTail(e.currentTarget.checked)} aria-label="Live tail: refresh every 2 seconds" />}
      />
      <Paper withBorder p="sm" component="form" aria-label="Log filters" onSubmit={(e) => e.preventDefault()}>
        <Group gap="sm" align="flex-end" wrap="wrap">
          <Select label="Status" data={STATUS_OPTIONS} value={filters.status ?? ''} onChange={(v) => setFilter('status', v ?? '')} allowDeselect={false} w={{ base: '100%', sm: 170 }} />
          <Select label="Method" data={METHOD_OPTIONS} value={filters.method ?? ''} onChange={(v) => setFilter('method', v ?? '')} allowDeselect={false} w={{ base: '100%', sm: 140 }} />
          {textFilter('path', 'Path starts with', '/posts')}
          <Select
            label="Credential"
            data={CREDENTIAL_OPTIONS}
            value={CREDENTIAL_OPTIONS.some((o) => o.value === filters.credential) ? (filters.credential ?? '') : ''}
            onChange={(v) => setFilter('credential', v ?? '')}
            allowDeselect={false}
            w={{ base: '100%', sm: 170 }}
          />
          {textFilter('request_id', 'Request id', 'X-Request-Id')}
          <Select label="Time" data={SINCE_OPTIONS} value={filters.since ?? ''} onChange={(v) => setFilter('since', v ?? '')} allowDeselect={false} w={{ base: '100%', sm: 170 }} />
        </Group>
      </Paper>
      {logs.isPending && !logs.error && <LoadingState label="Loading the request log…" />}
      {off && (
        <EmptyState title="The request log is off" icon={<IconListDetails size={26} />}>
          This server runs with request_log off.
        </EmptyState>
      )}
      {logs.error && !off ? <ErrorAlert error={logs.error} title="The request log could not be loaded" /> : null}
      {logs.data && entries.length === 0 && (
        <Paper withBorder p="lg">
          <EmptyState title="No requests match" icon={<IconListDetails size={26} />}>
            Requests to the generated API appear here within a few seconds of their answer.
          </EmptyState>
        </Paper>
      )}
      {entries.length > 0 && <LogTable entries={entries} />}
      {logs.hasNextPage && (
        <Group justify="center">
          <Button variant="default" onClick={() => void logs.fetchNextPage()} loading={logs.isFetchingNextPage}>
            Load older requests
          </Button>
        </Group>
      )}
    </Stack>
  );
}

function statusColor(status: number): string {
  if (status >= 500) return tones.danger;
  if (status >= 400) return tones.warning;
  return tones.success;
}

function who(c: LogEntry['credential']): string {
  switch (c.kind) {
    case 'key':
      return c.key_name ? `key ${c.key_name}` : `key ${c.key_prefix ?? ''} (revoked)`;
    case 'user':
      return `end user ${c.end_user ?? ''}`;
    case 'dashboard':
      return 'dashboard';
    default:
      return 'none';
  }
}

function LogTable({ entries }: { entries: LogEntry[] }) {
  const [open, setOpen] = useState<number | null>(null);
  return (
    <Table.ScrollContainer minWidth={720} type="native" tabIndex={0} role="region" aria-label="Requests, scrollable">
      <Table verticalSpacing={4} highlightOnHover aria-label="Requests">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>Method</Table.Th>
            <Table.Th>Path</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th ta="right">Latency</Table.Th>
            <Table.Th>Credential</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {entries.map((e) => (
            <Fragment key={e.id}>
              <Table.Tr
                onClick={() => setOpen(open === e.id ? null : e.id)}
                style={{ cursor: 'pointer' }}
                data-testid="log-row"
              >
                <Table.Td className="mono" style={{ whiteSpace: 'nowrap' }}>
                  {new Date(e.at).toLocaleTimeString(undefined, { hour12: false })}
                </Table.Td>
                <Table.Td>
                  <MethodBadge method={e.method} />
                </Table.Td>
                <Table.Td className="mono" style={{ wordBreak: 'break-all' }}>
                  <UnstyledButton className="mono" fz="sm" aria-expanded={open === e.id} aria-label={`Details of ${e.method} ${e.path}`} style={{ wordBreak: 'break-all', textAlign: 'left' }}>
                    {e.path}
                    {e.query ? `?${e.query}` : ''}
                  </UnstyledButton>
                </Table.Td>
                <Table.Td>
                  <Badge color={statusColor(e.status)} variant="light" className="mono">
                    {e.status}
                  </Badge>{' '}
                  {e.error && (
                    <Text span size="xs" c="dimmed">
                      {e.error.code}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                  {formatMs(e.latency_ms)}
                </Table.Td>
                <Table.Td>{who(e.credential)}</Table.Td>
              </Table.Tr>
              {open === e.id && (
                <Table.Tr>
                  <Table.Td colSpan={6}>
                    <LogDetails entry={e} />
                  </Table.Td>
                </Table.Tr>
              )}
            </Fragment>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function LogDetails({ entry: e }: { entry: LogEntry }) {
  const facts: [string, string][] = [
    ['Time', new Date(e.at).toISOString()],
    ['Request id', e.request_id],
    ['Origin', e.origin || '—'],
    ['Credential', who(e.credential)],
    ['Rows', e.rows === null ? '—' : String(e.rows)],
    ['Bytes', e.bytes.toLocaleString()],
  ];
  return (
    <Stack gap={6} py={4} data-testid="log-details">
      <Group gap="lg" wrap="wrap">
        {facts.map(([label, value]) => (
          <Text size="sm" key={label}>
            <Text span c="dimmed" size="sm">
              {label}:
            </Text>{' '}
            <span className="mono">{value}</span>
          </Text>
        ))}
      </Group>
      {e.error && (
        <>
          <Text size="sm" fw={600}>
            {e.error.code}: {e.error.message}
          </Text>
          <Code block style={{ maxHeight: 240, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
            {prettyJson(e.error.body)}
          </Code>
        </>
      )}
    </Stack>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
