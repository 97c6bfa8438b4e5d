import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { isApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useLoginMutation } from '../../data/account/login-mutation';
import { AuthCard } from './AuthCard';

export function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useLoginMutation();
  const navigate = useNavigate();
  const state = useLocation().state as { from?: string } | null;
  const from = state?.from ?? '/projects';
  const details = isApiError(login.error) ? login.error.details : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ email: email.trim(), password }, { onSuccess: () => navigate(from, { replace: true }) });
  };

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
