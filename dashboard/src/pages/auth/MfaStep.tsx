import { Anchor, Button, PinInput, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { isApiError } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useMfaLoginMutation } from '../../data/account/mfa-login-mutation';
import { AuthCard } from './AuthCard';

interface MfaStepProps {
  mfaToken: string;
  onSignedIn: () => void;
  /** Back to the password (the step's token expired, or the user wants to). */
  onRestart: () => void;
}

/** A login's second step: the authenticator app's code, or a recovery code. */
export function MfaStep({ mfaToken, onSignedIn, onRestart }: MfaStepProps) {
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState('');
  const mfa = useMfaLoginMutation();
  const expired = isApiError(mfa.error) && mfa.error.code === 'UNAUTHORIZED';

  const submit = (event?: FormEvent, value = code) => {
    event?.preventDefault();
    const body = useRecovery ? { mfa_token: mfaToken, recovery_code: recovery.trim() } : { mfa_token: mfaToken, code: value };
    mfa.mutate(body, { onSuccess: onSignedIn, onError: () => setCode('') });
  };

  return (
    <AuthCard
      title="Two-factor authentication"
      subtitle={useRecovery ? 'Enter one of the recovery codes you saved when you turned two-factor on.' : 'Enter the 6-digit code from your authenticator app.'}
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {mfa.error ? <ErrorAlert error={mfa.error} /> : null}
          {expired ? (
            <Button onClick={onRestart} fullWidth>
              Log in again
            </Button>
          ) : (
            <>
              {useRecovery ? (
                <TextInput
                  label="Recovery code"
                  placeholder="xxxx-xxxx-xxxx-xxxx"
                  autoComplete="off"
                  value={recovery}
                  onChange={(e) => setRecovery(e.currentTarget.value)}
                  data-autofocus
                />
              ) : (
                <Stack gap={4} align="center">
                  <PinInput
                    length={6}
                    type="number"
                    oneTimeCode
                    autoFocus
                    aria-label="Authentication code"
                    value={code}
                    onChange={setCode}
                    onComplete={(value) => submit(undefined, value)}
                  />
                </Stack>
              )}
              <Button type="submit" loading={mfa.isPending} disabled={useRecovery ? !recovery.trim() : code.length !== 6} fullWidth>
                Verify
              </Button>
              <Text size="sm" ta="center">
                <Anchor component="button" type="button" onClick={() => (setUseRecovery(!useRecovery), mfa.reset())}>
                  {useRecovery ? 'Use the authenticator app instead' : 'Use a recovery code instead'}
                </Anchor>
                {' · '}
                <Anchor component="button" type="button" onClick={onRestart}>
                  Back
                </Anchor>
              </Text>
            </>
          )}
        </Stack>
      </form>
    </AuthCard>
  );
}
