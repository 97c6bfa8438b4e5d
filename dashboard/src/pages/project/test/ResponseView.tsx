import { Badge, Group, Paper, Table, Tabs, Text } from '@mantine/core';
import type { GeneratedResponse } from '../../../api/generated';
import { prettyJsonText } from '../../../lib/exactJson';
import { tones } from '../../../tones';

function statusColor(status: number): string {
  if (status >= 500) return tones.danger;
  if (status >= 400) return tones.warning;
  if (status >= 300) return tones.info;
  return tones.success;
}

/** Status, time, headers and the pretty-printed body of a response. */
export function ResponseView({ response }: { response: GeneratedResponse }) {
  // Indented from the text itself, so decimals show every digit they came with.
  const pretty = response.json !== undefined ? prettyJsonText(response.text) : response.text;
  return (
    <Paper withBorder p="sm" aria-label="Response">
      <Group gap="sm" mb="xs" role="status">
        <Badge color={statusColor(response.status)} variant="filled" size="lg" data-testid="response-status">
          {response.status} {response.statusText}
        </Badge>
        <Text size="sm">{response.timeMs} ms</Text>
        <Text size="sm" c="dimmed">
          {new Blob([response.text]).size.toLocaleString()} bytes
        </Text>
      </Group>
      <Tabs defaultValue="body">
        <Tabs.List>
          <Tabs.Tab value="body">Body</Tabs.Tab>
          <Tabs.Tab value="headers">Headers ({response.headers.length})</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="body" pt="xs">
          <pre className="pre-block" data-testid="response-body" tabIndex={0} aria-label="Response body">
            {pretty || '(empty body)'}
          </pre>
        </Tabs.Panel>
        <Tabs.Panel value="headers" pt="xs">
          <Table verticalSpacing={2} fz="sm" aria-label="Response headers">
            <Table.Tbody>
              {response.headers.map(([name, value]) => (
                <Table.Tr key={name}>
                  <Table.Td className="mono" fw={600}>
                    {name}
                  </Table.Td>
                  <Table.Td className="mono" style={{ wordBreak: 'break-all' }}>
                    {value}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Tabs.Panel>
      </Tabs>
    </Paper>
  );
}
