import { Alert, Button, Loader, Stack, Text } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useSessionToken } from '../../api/useSessionToken';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useVerifyEmailMutation } from '../../data/account/verify-email-mutations';
import { AuthCard } from './AuthCard';

/** The page a verification link opens: it verifies at once, signed in or not. */
export function VerifyEmailPage() {
  const token = useSearchParams()[0].get('token') ?? '';
  const signedIn = Boolean(useSessionToken());
  const verify = useVerifyEmailMutation();
  const sent = useRef(false);

  useEffect(() => {
    // Once: a token is single use, and React may run effects twice.
    if (!token || sent.current) return;
    sent.current = true;
    verify.mutate(token);
  }, [token, verify]);

  const next = (
    <Button component={Link} to={signedIn ? '/projects' : '/login'} fullWidth>
      {signedIn ? 'Go to your projects' : 'Log in'}
    </Button>
  );

  return (
    <AuthCard title="Verify your e-mail address" subtitle="Confirming that this address is yours.">
      <Stack gap="sm">
        {!token && <Text size="sm">The link is missing its token. Open it from the e-mail again.</Text>}
        {verify.isPending && <Loader size="sm" aria-label="Verifying" />}
        {verify.isSuccess && (
          <Alert color="teal" variant="light" icon={<IconCircleCheck aria-hidden />} title="Address verified" role="status">
            {verify.data.email} is verified.
          </Alert>
        )}
        {verify.isError && (
          <>
            <ErrorAlert error={verify.error} />
            <Text size="sm" c="dimmed">
              {signedIn ? 'You can ask for a new link from the banner in the dashboard.' : 'Log in to ask for a new link.'}
            </Text>
          </>
        )}
        {!verify.isPending && next}
      </Stack>
    </AuthCard>
  );
}
