import { Alert, List, Loader, Text } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck } from '@tabler/icons-react';
import type { IndexStatus } from '../../../api/types';
import { useSchemaVersionQuery } from '../../../data/schema/schema-version-query';
import { describeBuild, indexSummary, isBuilding, visibleBuilds } from '../../../evolution/indexes';
import { tones } from '../../../tones';

/**
 * The indexes a version builds after generate answered: read from the version and asked again while any is building, so
 * the page shows each one becoming ready (or failing, with PostgreSQL's error).
 */
export function IndexBuildsPanel({ projectId, version, initial }: { projectId: string; version: number; initial?: IndexStatus | null }) {
  const query = useSchemaVersionQuery(projectId, version);
  const status = query.data?.indexes ?? initial;
  const builds = visibleBuilds(status);
  if (!status || builds.length === 0) return null;
  const building = isBuilding(status);
  const failed = status.state === 'failed';
  return (
    <Alert
      color={failed ? 'orange' : building ? 'blue' : 'gray'}
      variant="light"
      icon={building ? <Loader size="xs" aria-hidden /> : failed ? <IconAlertTriangle aria-hidden /> : <IconCircleCheck aria-hidden />}
      title={indexSummary(status)}
      role="status"
      aria-live="polite"
      data-testid="index-builds"
    >
      <Text size="sm" mb={4}>
        {failed
          ? 'The API works without these indexes, only slower on large tables. Generate again to retry them.'
          : 'The new version is already live: requests work while indexes build, only slower on large tables.'}
      </Text>
      <List size="sm" spacing={4}>
        {builds.map((build) => (
          <List.Item key={build.name}>
            <span className="mono">
              {build.table}.{build.column}
            </span>{' '}
            <Text span size="sm" c="dimmed">
              ({build.name})
            </Text>{' '}
            <Text
              span
              size="sm"
              c={build.state === 'failed' ? tones.danger : build.state === 'ready' ? tones.success : undefined}
              fw={build.state === 'failed' ? 600 : undefined}
            >
              — {describeBuild(build)}
              {build.error ? `: ${build.error}` : ''}
            </Text>
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
