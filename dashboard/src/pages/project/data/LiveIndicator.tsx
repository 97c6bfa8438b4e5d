import { Badge, Tooltip } from '@mantine/core';
import type { LiveRecords } from '../../../data/records/live-records';
import { tones } from '../../../tones';

const LABELS = {
  live: 'Live',
  connecting: 'Connecting…',
  reconnecting: 'Reconnecting…',
  stopped: 'Not live',
} as const;

/** Whether the table's rows follow its realtime stream; absent for tables without realtime. */
export function LiveIndicator({ live, tableName }: { live: LiveRecords; tableName: string }) {
  if (live.state === 'off') return null;
  const explanation =
    live.state === 'live'
      ? `Changes to ${tableName} appear here as they happen, from any client.`
      : live.state === 'stopped'
        ? `Live updates stopped: ${live.error?.message ?? 'the stream closed'}. Reload the page to try again.`
        : 'Opening the realtime stream; changes made meanwhile are not lost.';
  return (
    <Tooltip label={explanation} multiline w={280}>
      <Badge
        role="status"
        aria-live="polite"
        aria-label={`${LABELS[live.state]}: ${explanation}`}
        variant={live.state === 'live' ? 'filled' : 'outline'}
        color={live.state === 'live' ? tones.success : live.state === 'stopped' ? tones.danger : 'gray.8'}
        leftSection={<span aria-hidden style={{ display: 'inline-block', width: 8, height: 8, borderRadius: 4, background: 'currentColor' }} />}
        data-testid="live-indicator"
        data-state={live.state}
      >
        {LABELS[live.state]}
      </Badge>
    </Tooltip>
  );
}
