import { Badge } from '@mantine/core';
import { tones } from '../tones';

const COLORS: Record<string, string> = {
  GET: tones.info,
  POST: tones.success,
  PUT: tones.warning,
  PATCH: tones.accent,
  DELETE: tones.danger,
};

export function MethodBadge({ method }: { method: string }) {
  const upper = method.toUpperCase();
  return (
    <Badge color={COLORS[upper] ?? 'gray.8'} variant="filled" radius="sm" w={68} className="mono">
      {upper}
    </Badge>
  );
}
