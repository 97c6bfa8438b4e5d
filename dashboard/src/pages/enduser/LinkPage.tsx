import { Alert, Button, Stack, Text } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert';
import { AuthCard } from '../auth/AuthCard';
import { useEndUserAuth, useLinkParams } from './endUserAuth';

interface LinkPageProps {
  title: string;
  subtitle: ReactNode;
  /** The /auth route the token is POSTed to. */
  route: string;
  action: string;
  done: string;
}

/**
 * A page that confirms a mailed token with one click. The click, not the
 * page load, uses the token: mail scanners that open links must not use
 * them up.
 */
export function LinkPage({ title, subtitle, route, action, done }: LinkPageProps) {
  const { project, token } = useLinkParams();
  const confirm = useEndUserAuth(project, route);
  return (
    <AuthCard title={title} subtitle={subtitle}>
      {!project || !token ? (
        <Alert color="red" variant="light" role="alert" title="This link is incomplete">
          Open the link from the e-mail exactly as it was sent.
        </Alert>
      ) : confirm.isSuccess ? (
        <Alert color="green" variant="light" icon={<IconCircleCheck aria-hidden />} title={done} role="status">
          {confirm.data}
        </Alert>
      ) : (
        <Stack gap="sm">
          {confirm.error ? <ErrorAlert error={confirm.error} /> : null}
          <Button onClick={() => confirm.mutate({ token })} loading={confirm.isPending} fullWidth>
            {action}
          </Button>
          <Text size="xs" c="dimmed">
            You can close this page afterwards and return to the app.
          </Text>
        </Stack>
      )}
    </AuthCard>
  );
}
