import { Badge, Button, Card, Group, Modal, PasswordInput, PinInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { lazy, Suspense, useEffect, useRef, useState, type FormEvent } from 'react';
import type { Account } from '../../api/types';
import { isApiError } from '../../api/client';
import { CopyValue } from '../../components/CopyValue';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadingState } from '../../components/LoadingState';
import {
  useConfirmTotpMutation,
  useDisableTotpMutation,
  useRegenerateRecoveryCodesMutation,
  useStartTotpMutation,
} from '../../data/account/security-mutations';
import { RecoveryCodesView } from './RecoveryCodesView';

// The QR encoder loads with the enrolment dialog, not with the dashboard.
const TotpQr = lazy(() => import('./TotpQr').then((m) => ({ default: m.TotpQr })));

type Dialog = 'enrol' | 'disable' | 'regenerate' | null;

/** Two-factor authentication: turn it on (scan, confirm, save codes), off, or renew the recovery codes. */
export function TwoFactorCard({ account }: { account: Account }) {
  const [dialog, setDialog] = useState<Dialog>(null);
  const close = () => setDialog(null);
  return (
    <Card withBorder padding="lg">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <div>
            <Title order={2} size="h4">
              Two-factor authentication
            </Title>
            <Text size="sm" c="dimmed" maw={560}>
              A code from an authenticator app (1Password, Google Authenticator, Authy…) is asked at every log-in, after the password.
            </Text>
          </div>
          <Badge color={account.totp_enabled ? 'teal' : 'gray'} variant="light" data-testid="totp-status">
            {account.totp_enabled ? 'On' : 'Off'}
          </Badge>
        </Group>
        <Group gap="xs">
          {account.totp_enabled ? (
            <>
              <Button variant="light" onClick={() => setDialog('regenerate')}>
                New recovery codes
              </Button>
              <Button variant="light" color="red" onClick={() => setDialog('disable')}>
                Turn off
              </Button>
            </>
          ) : (
            <Button onClick={() => setDialog('enrol')}>Turn on two-factor</Button>
          )}
        </Group>
      </Stack>
      <Modal opened={dialog === 'enrol'} onClose={close} title="Turn on two-factor authentication" size="md" closeOnClickOutside={false}>
        {dialog === 'enrol' && <EnrolTotp email={account.email} onDone={close} />}
      </Modal>
      <Modal opened={dialog === 'disable'} onClose={close} title="Turn off two-factor authentication">
        {dialog === 'disable' && <DisableTotp onDone={close} />}
      </Modal>
      <Modal opened={dialog === 'regenerate'} onClose={close} title="New recovery codes" closeOnClickOutside={false}>
        {dialog === 'regenerate' && <RegenerateCodes email={account.email} onDone={close} />}
      </Modal>
    </Card>
  );
}

/** Scan (or type) the secret, confirm with a code, then save the recovery codes. */
function EnrolTotp({ email, onDone }: { email: string; onDone: () => void }) {
  const start = useStartTotpMutation();
  const confirm = useConfirmTotpMutation();
  const [code, setCode] = useState('');
  const started = useRef(false);
  useEffect(() => {
    // Once per dialog: starting again would replace the secret just scanned.
    if (started.current) return;
    started.current = true;
    start.mutate();
  }, [start]);
  if (confirm.data) {
    return (
      <Stack gap="md">
        <Text size="sm">Two-factor authentication is on. From now on, logging in asks for a code.</Text>
        <RecoveryCodesView codes={confirm.data.recovery_codes} email={email} />
        <Button onClick={onDone}>I have saved my recovery codes</Button>
      </Stack>
    );
  }
  if (start.isPending) return <LoadingState label="Preparing…" />;
  if (start.error || !start.data) return <ErrorAlert error={start.error} />;

  const submit = (event?: FormEvent, value = code) => {
    event?.preventDefault();
    confirm.mutate(value, { onError: () => setCode('') });
  };
  const details = isApiError(confirm.error) ? confirm.error.details : {};
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">1. Scan this code with your authenticator app.</Text>
        <Group justify="center">
          <Suspense fallback={<LoadingState label="Drawing the QR code…" />}>
            <TotpQr url={start.data.otpauth_url} />
          </Suspense>
        </Group>
        <Text size="sm">
          Can't scan? Enter this key instead: <CopyValue value={start.data.secret} what="setup key" />
        </Text>
        <Text size="sm">2. Enter the 6-digit code the app shows.</Text>
        <Stack gap={4} align="center">
          <PinInput length={6} type="number" oneTimeCode aria-label="Code from the app" value={code} onChange={setCode} onComplete={(v) => submit(undefined, v)} />
          {details.code && (
            <Text size="xs" c="red" role="alert">
              {details.code}
            </Text>
          )}
        </Stack>
        {confirm.error && !details.code ? <ErrorAlert error={confirm.error} /> : null}
        <Button type="submit" loading={confirm.isPending} disabled={code.length !== 6}>
          Turn on
        </Button>
      </Stack>
    </form>
  );
}

function DisableTotp({ onDone }: { onDone: () => void }) {
  const disable = useDisableTotpMutation();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const details = isApiError(disable.error) ? disable.error.details : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    disable.mutate({ password, code: code.trim() }, { onSuccess: onDone });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <Text size="sm">Logging in will ask only for the password. Your recovery codes stop working.</Text>
        {disable.error && !Object.keys(details).length ? <ErrorAlert error={disable.error} /> : null}
        <PasswordInput label="Password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={details.password} data-autofocus />
        <TextInput
          label="Code"
          description="From your authenticator app, or a recovery code"
          autoComplete="one-time-code"
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={details.code}
        />
        <Button type="submit" color="red" loading={disable.isPending} disabled={!password || !code.trim()}>
          Turn off two-factor
        </Button>
      </Stack>
    </form>
  );
}

function RegenerateCodes({ email, onDone }: { email: string; onDone: () => void }) {
  const regenerate = useRegenerateRecoveryCodesMutation();
  const [code, setCode] = useState('');
  const details = isApiError(regenerate.error) ? regenerate.error.details : {};
  if (regenerate.data) {
    return (
      <Stack gap="md">
        <RecoveryCodesView codes={regenerate.data.recovery_codes} email={email} />
        <Button onClick={onDone}>I have saved my recovery codes</Button>
      </Stack>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    regenerate.mutate(code.trim());
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <Text size="sm">Your current recovery codes stop working; you get ten new ones.</Text>
        {regenerate.error && !Object.keys(details).length ? <ErrorAlert error={regenerate.error} /> : null}
        <TextInput
          label="Code"
          description="From your authenticator app, or a recovery code"
          autoComplete="one-time-code"
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={details.code}
          data-autofocus
        />
        <Button type="submit" loading={regenerate.isPending} disabled={!code.trim()}>
          Make new codes
        </Button>
      </Stack>
    </form>
  );
}
