import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = {
  GET: 'blue.9',
  POST: 'teal.9',
  PUT: 'orange.9',
  PATCH: 'grape.9',
  DELETE: 'red.9',
};

export function MethodBadge({ method }: { method: string }) {
  const upper = method.toUpperCase();
  return (
    <Badge color={COLORS[upper] ?? 'gray.8'} variant="filled" radius="sm" w={68} className="mono">
      {upper}
    </Badge>
  );
}
