import { Anchor, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { isApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useSignupMutation } from '../../data/account/signup-mutation';
import { AuthCard } from './AuthCard';

const MIN_PASSWORD = 8;

export function SignupPage() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const signup = useSignupMutation();
  const navigate = useNavigate();
  // Where to return after signing up (an invitation link), as the log-in page does.
  const state = useLocation().state as { from?: string } | null;
  const from = state?.from ?? '/projects';
  const details = isApiError(signup.error) ? signup.error.details : {};

  const localErrors = {
    name: name.trim() ? undefined : 'Tell us your name',
    email: /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email.trim()) ? undefined : 'Enter an e-mail address like you@example.com',
    password: password.length >= MIN_PASSWORD ? undefined : `Use at least ${MIN_PASSWORD} characters`,
  };
  const shown = (field: keyof typeof localErrors) => details[field] ?? (touched ? localErrors[field] : undefined);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (Object.values(localErrors).some(Boolean)) return;
    signup.mutate(
      { name: name.trim(), email: email.trim(), password },
      { onSuccess: () => navigate(from, { replace: true }) },
    );
  };

  return (
    <AuthCard
      title="Create your account"
      subtitle={
        <>
          Already have one?{' '}
          <Anchor component={Link} to="/login" state={state}>
            Log in
          </Anchor>
        </>
      }
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {signup.error && !Object.keys(details).length ? <ErrorAlert error={signup.error} /> : null}
          <TextInput label="Name" autoComplete="name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={shown('name')} data-autofocus />
          <TextInput
            label="E-mail"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={shown('email')}
          />
          <PasswordInput
            label="Password"
            description={`At least ${MIN_PASSWORD} characters`}
            autoComplete="new-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            error={shown('password')}
          />
          <Button type="submit" loading={signup.isPending} fullWidth>
            Sign up — free plan
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
