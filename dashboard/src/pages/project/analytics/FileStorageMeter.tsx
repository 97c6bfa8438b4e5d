import { Paper, Progress, Stack, Text } from '@mantine/core';
import type { Analytics } from '../../../api/types';
import { formatBytes } from '../../../builder/fileSettings';
import { tones } from '../../../tones';

/** What the project's stored files hold against the plan ("12 MB of 100 MB"). */
export function FileStorageMeter({ storage }: { storage: NonNullable<Analytics['file_storage']> }) {
  const bounded = storage.limit_bytes > 0;
  const percent = bounded ? Math.min(100, (storage.used_bytes / storage.limit_bytes) * 100) : 0;
  const color = percent >= 90 ? tones.danger : percent >= 70 ? tones.warning : undefined;
  return (
    <Paper withBorder p="md">
      <Stack gap={6}>
        <Text fw={600}>File storage</Text>
        <Text size="xl" fw={700} data-testid="file-storage-meter">
          {bounded ? `${formatBytes(storage.used_bytes)} of ${formatBytes(storage.limit_bytes)}` : formatBytes(storage.used_bytes)}
        </Text>
        {bounded && <Progress value={percent} color={color} aria-label="File storage used" />}
        <Text size="sm" c="dimmed">
          {bounded ? 'stored files, the plan’s bound' : 'stored files, no bound on this plan'}
        </Text>
      </Stack>
    </Paper>
  );
}
