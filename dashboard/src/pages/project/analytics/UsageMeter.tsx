import { Paper, Progress, Stack, Text } from '@mantine/core';
import type { Analytics } from '../../../api/types';
import { formatDateTime } from '../../../lib/format';
import { tones } from '../../../tones';

/** This hour's generated-API requests against the plan ("37 of 100 this hour"). */
export function UsageMeter({ usage }: { usage: NonNullable<Analytics['plan_usage']> }) {
  const bounded = typeof usage.limit === 'number' && usage.limit > 0;
  const percent = bounded ? Math.min(100, (usage.used / usage.limit!) * 100) : 0;
  const color = percent >= 90 ? tones.danger : percent >= 70 ? tones.warning : undefined;
  return (
    <Paper withBorder p="md">
      <Stack gap={6}>
        <Text fw={600}>Plan usage</Text>
        <Text size="xl" fw={700} data-testid="usage-meter">
          {bounded ? `${usage.used.toLocaleString()} of ${usage.limit!.toLocaleString()} this hour` : `${usage.used.toLocaleString()} this hour`}
        </Text>
        {bounded && <Progress value={percent} color={color} aria-label="Requests used this hour" />}
        <Text size="sm" c="dimmed">
          {usage.plan} plan{bounded ? '' : ', no hourly limit'}
          {usage.resets_at ? ` · resets ${formatDateTime(usage.resets_at)}` : ''}
        </Text>
      </Stack>
    </Paper>
  );
}
