import { Badge } from '@mantine/core';
import type { HealthSummary } from '../../../external/connection';
import { tones } from '../../../tones';

const COLORS: Record<HealthSummary['tone'], string> = {
  success: tones.success,
  danger: tones.danger,
  neutral: 'gray.7',
};

export function ConnectionStatusBadge({ summary }: { summary: HealthSummary }) {
  return (
    <Badge color={COLORS[summary.tone]} variant={summary.tone === 'neutral' ? 'outline' : 'filled'} size="sm" tt="none" data-testid="connection-status">
      {summary.label}
    </Badge>
  );
}
