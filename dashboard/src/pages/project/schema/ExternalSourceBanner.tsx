import { Alert, Anchor, Text } from '@mantine/core';
import { IconDatabase } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { Project } from '../../../api/types';
import { healthSummary } from '../../../external/connection';
import { ConnectionStatusBadge } from '../settings/ConnectionStatusBadge';

/** On the builder of a project that fronts an existing database: which one, its health, and where to refresh. */
export function ExternalSourceBanner({ project }: { project: Project }) {
  const connection = project.connection;
  if (!connection) return null;
  const leftOut = project.introspection?.unsupported?.length ?? 0;
  const health = healthSummary(connection.status);
  return (
    <Alert color="blue" variant="light" icon={<IconDatabase aria-hidden />} p="xs" data-testid="external-source">
      <Text size="sm">
        These tables live in schema <b className="mono">{connection.schema}</b> of <span className="mono">{connection.url}</span>{' '}
        <ConnectionStatusBadge summary={health} />. Columns marked read-only have database types Tablesmith serves as they are.
        {leftOut > 0 ? ` ${leftOut} ${leftOut === 1 ? 'table was' : 'tables were'} left out. ` : ' '}
        <Anchor component={Link} to={`/projects/${project.id}/settings#database`} size="sm">
          {leftOut > 0 ? 'See why, or refresh from the database' : 'Refresh from the database'}
        </Anchor>{' '}
        after changing it outside Tablesmith.
      </Text>
    </Alert>
  );
}
