import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { isApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { isMfaRequired, useLoginMutation } from '../../data/account/login-mutation';
import { AuthCard } from './AuthCard';
import { MfaStep } from './MfaStep';

export function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const login = useLoginMutation();
  const navigate = useNavigate();
  const state = useLocation().state as { from?: string } | null;
  const from = state?.from ?? '/projects';
  const details = isApiError(login.error) ? login.error.details : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate(
      { email: email.trim(), password },
      { onSuccess: (result) => (isMfaRequired(result) ? setMfaToken(result.mfa_token) : navigate(from, { replace: true })) },
    );
  };

  if (mfaToken) {
    return <MfaStep mfaToken={mfaToken} onSignedIn={() => navigate(from, { replace: true })} onRestart={() => (setMfaToken(null), setPassword(''))} />;
  }

  return (
    <AuthCard
      title="Log in"
      subtitle={
        <>
          New here?{' '}
          <Anchor component={Link} to="/signup" state={state}>
            Create an account
          </Anchor>
        </>
      }
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {login.error && !Object.keys(details).length ? <ErrorAlert error={login.error} /> : null}
          <TextInput
            label="E-mail"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={details.email}
            data-autofocus
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={details.password}
          />
          <Anchor component={Link} to="/forgot-password" state={{ email: email.trim() }} size="sm" ta="right">
            Forgot password?
          </Anchor>
          <Button type="submit" loading={login.isPending} fullWidth>
            Log in
          </Button>
          <Text size="xs" c="dimmed">
            Your session stays in this browser until you log out.
          </Text>
        </Stack>
      </form>
    </AuthCard>
  );
}
