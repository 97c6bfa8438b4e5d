import { Badge, Button, Group, Stack, Text, UnstyledButton } from '@mantine/core';
import type { HistoryEntry } from '../../../console/history';
import { MethodBadge } from '../../../components/MethodBadge';
import { tones } from '../../../tones';

interface HistoryListProps {
  entries: HistoryEntry[];
  onPick: (entry: HistoryEntry) => void;
  onClear: () => void;
}

export function HistoryList({ entries, onPick, onClear }: HistoryListProps) {
  if (entries.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        Requests you send appear here.
      </Text>
    );
  }
  return (
    <Stack gap={4}>
      <Stack gap={2} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {entries.map((entry) => (
          <li key={entry.at}>
            <UnstyledButton onClick={() => onPick(entry)} w="100%" p={4} style={{ borderRadius: 6 }} aria-label={`Repeat ${entry.method} ${entry.url}`}>
              <Group gap={6} wrap="nowrap">
                <MethodBadge method={entry.method} />
                <Text size="xs" className="mono" truncate="end" style={{ flex: 1, minWidth: 0 }}>
                  {entry.url.replace(/^\/v1\/[^/]+/, '')}
                </Text>
                <Badge size="sm" variant="outline" color={entry.status >= 400 ? tones.danger : tones.success}>
                  {entry.status || 'failed'}
                </Badge>
              </Group>
            </UnstyledButton>
          </li>
        ))}
      </Stack>
      <Button variant="subtle" size="compact-xs" color="gray.8" onClick={onClear} style={{ alignSelf: 'flex-end' }}>
        Clear history
      </Button>
    </Stack>
  );
}
