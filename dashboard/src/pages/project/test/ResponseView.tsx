import { Badge, Group, Paper, Stack, Table, Tabs, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { GeneratedResponse } from '../../../api/generated';
import { prettyJsonText } from '../../../lib/exactJson';
import { tones } from '../../../tones';

function statusColor(status: number): string {
  if (status >= 500) return tones.danger;
  if (status >= 400) return tones.warning;
  if (status >= 300) return tones.info;
  return tones.success;
}

/** A binary answer (a file download) in words, and the image itself when it is one. */
function BinaryBody({ blob }: { blob: Blob }) {
  const isImage = blob.type.startsWith('image/');
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    if (!isImage) return;
    const url = URL.createObjectURL(blob);
    setSrc(url);
    return () => URL.revokeObjectURL(url);
  }, [blob, isImage]);
  return (
    <Stack gap="xs" data-testid="response-body">
      <Text size="sm" className="mono">
        binary: {blob.size.toLocaleString()} bytes, {blob.type || 'no content type'}
      </Text>
      {src && (
        // At its own size, never enlarged, at most 320 pixels a side.
        <img src={src} alt="The image the response holds" style={{ maxWidth: 320, maxHeight: 320, alignSelf: 'flex-start' }} data-testid="response-image" />
      )}
    </Stack>
  );
}

/** Status, time, headers and the pretty-printed body of a response (a binary one in words). */
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
          {(response.blob ?? new Blob([response.text])).size.toLocaleString()} bytes
        </Text>
      </Group>
      <Tabs defaultValue="body">
        <Tabs.List>
          <Tabs.Tab value="body">Body</Tabs.Tab>
          <Tabs.Tab value="headers">Headers ({response.headers.length})</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="body" pt="xs">
          {response.blob ? (
            <BinaryBody blob={response.blob} />
          ) : (
            <pre className="pre-block" data-testid="response-body" tabIndex={0} aria-label="Response body">
              {pretty || '(empty body)'}
            </pre>
          )}
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
