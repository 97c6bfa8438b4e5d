import { Alert, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { IconCircleCheck } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { isApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { AuthCard } from '../auth/AuthCard';
import { useEndUserAuth, useLinkParams } from './endUserAuth';

/** /auth/reset-password: the link of a password reset e-mail. */
export function ResetPasswordPage() {
  const { project, token } = useLinkParams();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const reset = useEndUserAuth(project, 'password-reset/confirm');
  const details = isApiError(reset.error) ? reset.error.details : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMismatch(password !== repeat);
    if (password !== repeat) return;
    reset.mutate({ token, password });
  };

  if (!project || !token) {
    return (
      <AuthCard title="Set a new password" subtitle="">
        <Alert color="red" variant="light" role="alert" title="This link is incomplete">
          Open the link from the e-mail exactly as it was sent.
        </Alert>
      </AuthCard>
    );
  }
  if (reset.isSuccess) {
    return (
      <AuthCard title="Set a new password" subtitle="">
        <Alert color="green" variant="light" icon={<IconCircleCheck aria-hidden />} title="Password changed" role="status">
          Sign in to the app with your new password. Every other session of your account was signed out.
        </Alert>
      </AuthCard>
    );
  }
  // A problem with the token is shown above the form; one with the password under its field.
  const passwordProblem = details.password;
  return (
    <AuthCard title="Set a new password" subtitle="Choose the password you will sign in with from now on.">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {reset.error && !passwordProblem ? <ErrorAlert error={reset.error} /> : null}
          <PasswordInput
            label="New password"
            autoComplete="new-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={passwordProblem}
            data-autofocus
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            value={repeat}
            onChange={(e) => setRepeat(e.currentTarget.value)}
            error={mismatch ? 'The two passwords differ' : undefined}
          />
          <Button type="submit" loading={reset.isPending} fullWidth>
            Set password
          </Button>
          <Text size="xs" c="dimmed">
            The link works once and for one hour.
          </Text>
        </Stack>
      </form>
    </AuthCard>
  );
}
