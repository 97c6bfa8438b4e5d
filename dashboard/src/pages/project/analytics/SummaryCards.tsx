import { Paper, SimpleGrid, Text } from '@mantine/core';
import type { Analytics } from '../../../api/types';
import { formatMs, formatPercent } from '../../../lib/format';

export function SummaryCards({ summary }: { summary: Analytics['summary'] }) {
  const cards = [
    { label: 'Requests', value: summary.total_requests.toLocaleString() },
    { label: 'Error rate', value: formatPercent(summary.error_rate) },
    { label: 'p50 latency', value: formatMs(summary.p50_ms) },
    { label: 'p95 latency', value: formatMs(summary.p95_ms) },
    { label: 'p99 latency', value: formatMs(summary.p99_ms) },
    { label: 'Rate limited', value: summary.rate_limited.toLocaleString() },
  ];
  return (
    <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="sm">
      {cards.map((card) => (
        <Paper key={card.label} withBorder p="sm">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {card.label}
          </Text>
          <Text size="xl" fw={700}>
            {card.value}
          </Text>
        </Paper>
      ))}
    </SimpleGrid>
  );
}
