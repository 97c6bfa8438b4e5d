import { Badge, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import type { Account } from '../../api/types';

/** The account's plan with its project and request allowances. */
export function PlanSummary({ account }: { account: Account }) {
  const limit = account.limits?.projects;
  const used = account.usage?.projects ?? 0;
  const rate = account.limits?.rate_per_hour;
  const bounded = typeof limit === 'number' && limit > 0;
  return (
    <Paper withBorder p="md" aria-label="Your plan">
      <Group justify="space-between" wrap="wrap" gap="md">
        <Stack gap={2}>
          <Group gap="xs">
            <Text fw={600}>Plan</Text>
            <Badge variant="filled" tt="capitalize">
              {account.plan}
            </Badge>
          </Group>
          <Text size="sm" c="dimmed">
            {typeof rate === 'number' && rate > 0
              ? `${rate.toLocaleString()} generated-API requests per hour per project`
              : 'No request limit'}
          </Text>
        </Stack>
        <Stack gap={4} miw={220}>
          <Text size="sm">{bounded ? `${used} of ${limit} ${limit === 1 ? 'project' : 'projects'} used` : `${used} ${used === 1 ? 'project' : 'projects'} · no project limit`}</Text>
          {bounded && <Progress value={Math.min(100, (used / limit) * 100)} aria-label="Projects used" />}
        </Stack>
      </Group>
    </Paper>
  );
}

export function atProjectLimit(account: Account | undefined): boolean {
  const limit = account?.limits?.projects;
  return typeof limit === 'number' && limit > 0 && (account?.usage?.projects ?? 0) >= limit;
}
