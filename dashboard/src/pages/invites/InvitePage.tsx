import { Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router';
import { isApiError } from '../../api/client';
import { setSessionToken } from '../../api/session';
import { useSessionToken } from '../../api/useSessionToken';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useAccountQuery } from '../../data/account/account-query';
import { useAcceptInvitationMutation } from '../../data/members/members';
import { AuthCard } from '../auth/AuthCard';

/**
 * The page an invitation e-mail links to. A visitor without a session
 * signs in or up first and comes back here; then one click joins.
 */
export function InvitePage() {
  const { token = '' } = useParams();
  const session = useSessionToken();
  const back = { from: `/invites/${token}` };
  if (!session) {
    return (
      <AuthCard title="You are invited to a project" subtitle="Sign in, or create an account, with the e-mail address the invitation was sent to.">
        <Group grow>
          <Button component={Link} to="/login" state={back}>
            Log in
          </Button>
          <Button component={Link} to="/signup" state={back} variant="default">
            Sign up
          </Button>
        </Group>
      </AuthCard>
    );
  }
  return <AcceptInvitation token={token} />;
}

function AcceptInvitation({ token }: { token: string }) {
  const account = useAccountQuery();
  const accept = useAcceptInvitationMutation();
  const navigate = useNavigate();
  const wrongAccount = isApiError(accept.error, 'FORBIDDEN');

  return (
    <AuthCard title="Join the project" subtitle={account.data ? `Signed in as ${account.data.email}` : ' '}>
      <Stack gap="sm">
        {accept.error && <ErrorAlert error={accept.error} title="The invitation was not accepted" />}
        {wrongAccount && (
          <Text size="sm">
            <Anchor component="button" type="button" onClick={() => setSessionToken(null)}>
              Log out
            </Anchor>{' '}
            and sign in with the invited address.
          </Text>
        )}
        <Button
          loading={accept.isPending}
          onClick={() => accept.mutate({ token }, { onSuccess: (project) => navigate(`/projects/${project.id}`, { replace: true }) })}
        >
          Accept invitation
        </Button>
        <Anchor component={Link} to="/projects" size="sm">
          Not now: go to your projects
        </Anchor>
      </Stack>
    </AuthCard>
  );
}
