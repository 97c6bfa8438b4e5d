import { Anchor, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { Analytics } from '../../../api/types';
import { MethodBadge } from '../../../components/MethodBadge';
import { pathPrefixOf } from '../../../data/logs/logs-query';
import { formatMs, formatPercent } from '../../../lib/format';

export function TopEndpointsTable({ endpoints }: { endpoints: Analytics['top_endpoints'] }) {
  if (endpoints.length === 0) return <Text size="sm" c="dimmed">No requests in this range.</Text>;
  // Scrolls sideways on a phone: focusable, so the keyboard can scroll it too.
  return (
    <Table.ScrollContainer minWidth={480} type="native" tabIndex={0} role="region" aria-label="Top endpoints, scrollable">
      <Table striped verticalSpacing={4} aria-label="Top endpoints">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Method</Table.Th>
            <Table.Th>Path</Table.Th>
            <Table.Th ta="right">Requests</Table.Th>
            <Table.Th ta="right">Errors</Table.Th>
            <Table.Th ta="right">p95</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {endpoints.map((e) => (
            <Table.Tr key={`${e.method} ${e.path}`}>
              <Table.Td>
                <MethodBadge method={e.method} />
              </Table.Td>
              <Table.Td className="mono">
                {/* The endpoint's requests in the request log. */}
                <Anchor component={Link} to={`../logs?${new URLSearchParams({ method: e.method, path: pathPrefixOf(e.path) }).toString()}`} relative="path">
                  {e.path}
                </Anchor>
              </Table.Td>
              <Table.Td ta="right">{e.count.toLocaleString()}</Table.Td>
              <Table.Td ta="right">{formatPercent(e.error_rate)}</Table.Td>
              <Table.Td ta="right">{formatMs(e.p95_ms)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
