import { Badge, Group, Stack, Table, Text } from '@mantine/core';
import type { PlannedChange } from '../../../api/types';
import { tones } from '../../../tones';

const KIND_COLORS: [RegExp, string][] = [
  [/drop|delete|remove/, tones.danger],
  [/create|add/, tones.success],
  [/rename/, 'indigo.8'],
];

function kindColor(kind: string): string {
  return KIND_COLORS.find(([pattern]) => pattern.test(kind))?.[1] ?? 'gray.8';
}

export function humanizeKind(kind: string): string {
  const words = kind.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The pending changes of a plan: what each does, and which lose data. */
export function ChangeList({ changes }: { changes: PlannedChange[] }) {
  return (
    <Table.ScrollContainer minWidth={520}>
      <Table striped verticalSpacing="xs" aria-label="Pending changes">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Change</Table.Th>
            <Table.Th>Where</Table.Th>
            <Table.Th>What it does</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {changes.map((change, i) => (
            <Table.Tr key={`${change.kind}-${change.table}-${change.column ?? ''}-${i}`}>
              <Table.Td>
                <Stack gap={4} align="flex-start">
                  <Badge color={kindColor(change.kind)} variant="outline" tt="none">
                    {humanizeKind(change.kind)}
                  </Badge>
                  {change.destructive && (
                    <Badge color={tones.danger} variant="filled" tt="none">
                      loses data
                    </Badge>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>
                <Group gap={2} className="mono">
                  <Text span size="sm">
                    {change.table}
                    {change.column ? `.${change.column}` : ''}
                  </Text>
                </Group>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{change.description}</Text>
                {change.unsupported && (
                  <Text size="sm" c={tones.danger}>
                    Cannot be applied yet: {change.unsupported}
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
