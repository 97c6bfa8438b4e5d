import { Grid, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconChartLine } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { isApiError } from '../../../api/client';
import type { Analytics, AnalyticsRange } from '../../../api/types';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { TimeSeriesChart, type ChartSeries } from '../../../components/TimeSeriesChart';
import { getAnalytics, useAnalyticsQuery } from '../../../data/analytics/analytics-query';
import { analyticsKeys } from '../../../data/analytics/keys';
import { useProjectId } from '../useProjectId';
import { EMPTY_RANGE, smallestRangeShowing } from './initialRange';
import { SummaryCards } from './SummaryCards';
import { TopEndpointsTable } from './TopEndpointsTable';
import { FileStorageMeter } from './FileStorageMeter';
import { UsageMeter } from './UsageMeter';

const RANGES: { value: AnalyticsRange; label: string }[] = [
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
];

export function AnalyticsPage() {
  const projectId = useProjectId();
  // The page opens on the smallest range that shows every request
  // (initialRange.ts); the user's choice after that.
  const [chosen, setChosen] = useState<AnalyticsRange | null>(null);
  const opening = useQuery({
    queryKey: [...analyticsKeys.all(projectId), 'opening-range'],
    queryFn: ({ signal }) => smallestRangeShowing(async (r) => (await getAnalytics(projectId, r, signal)).summary.total_requests),
    enabled: chosen === null,
    staleTime: Infinity,
    retry: false,
  });
  const range = chosen ?? opening.data ?? null;
  const setRange = setChosen;
  const analytics = useAnalyticsQuery(projectId, range ?? EMPTY_RANGE, range !== null || Boolean(opening.error));
  const deciding = range === null && !opening.error;
  const missing = isApiError(analytics.error) && (analytics.error.status === 404 || analytics.error.status === 405 || analytics.error.status === 501);

  return (
    <Stack gap="md">
      <PageHeader
        title="Analytics"
        description="Your customers' requests to the generated API: volume by status, latency, busiest endpoints and this hour's plan usage. Your own requests from this dashboard are counted apart."
        actions={<SegmentedControl aria-label="Time range" data={RANGES} value={range ?? ''} onChange={(v) => setRange(v as AnalyticsRange)} disabled={deciding} />}
      />
      {(analytics.isPending || deciding) && !analytics.error && !opening.error && <LoadingState label="Loading analytics…" />}
      {missing && (
        <EmptyState title="No analytics yet" icon={<IconChartLine size={26} />}>
          Usage appears here once the API has answered requests made with an API key or an end-user token.
        </EmptyState>
      )}
      {analytics.error && !missing ? <ErrorAlert error={analytics.error} title="Analytics could not be loaded" /> : null}
      {analytics.data && !deciding && <AnalyticsBody analytics={analytics.data} />}
    </Stack>
  );
}

function AnalyticsBody({ analytics }: { analytics: Analytics }) {
  // One array per answer, so the memos below recompute only when it changes.
  const series = useMemo(() => analytics.series ?? [], [analytics.series]);
  const times = useMemo(() => series.map((p) => Math.floor(new Date(p.t).getTime() / 1000)), [series]);
  const statusSeries = useMemo<ChartSeries[]>(
    () => [
      { label: '2xx', color: '#2b8a3e', values: series.map((p) => p.count_2xx) },
      { label: '3xx', color: '#1864ab', values: series.map((p) => p.count_3xx) },
      { label: '4xx', color: '#e67700', values: series.map((p) => p.count_4xx) },
      { label: '5xx', color: '#c92a2a', values: series.map((p) => p.count_5xx) },
    ],
    [series],
  );
  const latencySeries = useMemo<ChartSeries[]>(
    () => [
      { label: 'p50', color: '#2b8a3e', values: series.map((p) => p.p50_ms) },
      { label: 'p95', color: '#e67700', values: series.map((p) => p.p95_ms) },
      { label: 'p99', color: '#c92a2a', values: series.map((p) => p.p99_ms), dash: [6, 4] },
    ],
    [series],
  );

  return (
    <Stack gap="md">
      <Grid gutter="md">
        <Grid.Col span={{ base: 12, md: 8 }}>
          <SummaryCards summary={analytics.summary} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack gap="md">
            {analytics.plan_usage ? (
              <UsageMeter usage={analytics.plan_usage} />
            ) : (
              <Paper withBorder p="md">
                <Text c="dimmed" size="sm">
                  Plan usage is not reported by this server.
                </Text>
              </Paper>
            )}
            {analytics.file_storage && analytics.file_storage.used_bytes > 0 && <FileStorageMeter storage={analytics.file_storage} />}
          </Stack>
        </Grid.Col>
      </Grid>
      {series.length === 0 || analytics.summary.total_requests === 0 ? (
        <Paper withBorder p="lg">
          <EmptyState title="No requests in this range" icon={<IconChartLine size={26} />}>
            Requests made with an API key or an end-user token appear here. On the Test page, choose an API key instead of your
            dashboard session to send requests as your customers do.
          </EmptyState>
        </Paper>
      ) : (
        <Grid gutter="md">
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <Paper withBorder p="md">
              <TimeSeriesChart title="Requests by status class" times={times} series={statusSeries} />
            </Paper>
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <Paper withBorder p="md">
              <TimeSeriesChart title="Latency percentiles" times={times} series={latencySeries} unit=" ms" />
            </Paper>
          </Grid.Col>
        </Grid>
      )}
      <DashboardTrafficNote requests={analytics.dashboard?.requests ?? 0} />
      <Paper withBorder p="md" component="section" aria-label="Top endpoints">
        <Text fw={600} mb="xs">
          Top endpoints
        </Text>
        <TopEndpointsTable endpoints={analytics.top_endpoints ?? []} />
      </Paper>
    </Stack>
  );
}

/** The owner's own dashboard requests in the range, shown apart from customer traffic. */
function DashboardTrafficNote({ requests }: { requests: number }) {
  return (
    <Text size="sm" c="dimmed" data-testid="dashboard-traffic">
      {requests === 0
        ? 'No requests from your dashboard (Data, Test, API Docs) in this range.'
        : `${requests.toLocaleString()} ${requests === 1 ? 'request' : 'requests'} from your dashboard (Data, Test, API Docs) in this range: not included above and not counted against your plan.`}
    </Text>
  );
}
