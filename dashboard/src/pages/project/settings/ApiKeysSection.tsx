import { Alert, Badge, Button, Group, Modal, Paper, SegmentedControl, Stack, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { isApiError } from '../../../api/client';
import type { ApiKey, CreatedApiKey, KeyScope } from '../../../api/types';
import { CopyValue } from '../../../components/CopyValue';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { SecretBlock } from '../../../components/SecretBlock';
import { LoadingState } from '../../../components/LoadingState';
import { useApiKeyCreateMutation } from '../../../data/keys/api-key-create-mutation';
import { useApiKeyRevokeMutation } from '../../../data/keys/api-key-revoke-mutation';
import { useApiKeysQuery } from '../../../data/keys/api-keys-query';
import { formatDateTime } from '../../../lib/format';
import { useKeyVault } from '../../../lib/keyVault';
import { tones } from '../../../tones';
import { RoleGate } from '../../../components/RoleGate';

export function ApiKeysSection({ projectId }: { projectId: string }) {
  const keys = useApiKeysQuery(projectId);
  const vault = useKeyVault(projectId);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const secrets = new Map(vault.keys.map((k) => [k.id, k.secret]));

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="keys-title">
      <Stack gap="md">
        <div>
          <Title order={2} size="h4" id="keys-title">
            API keys
          </Title>
          <Text size="sm" c="dimmed">
            Send a key as <span className="mono">Authorization: Bearer &lt;key&gt;</span>. A read key can only list and get.
          </Text>
        </div>
        <RoleGate need="developer" mode="hide">
          <CreateKeyForm projectId={projectId} onCreated={setCreated} />
        </RoleGate>
        {created && <CreatedKeyNotice created={created} onDismiss={() => setCreated(null)} />}
        {keys.isPending && <LoadingState label="Loading keys…" />}
        {keys.error ? <ErrorAlert error={keys.error} title="Could not load the keys" /> : null}
        {keys.data?.length === 0 && <Text size="sm">No keys yet.</Text>}
        {keys.data && keys.data.length > 0 && (
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing="xs" aria-label="API keys">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Scope</Table.Th>
                  <Table.Th>Prefix</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Last used</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {keys.data.map((key) => (
                  <Table.Tr key={key.id}>
                    <Table.Td>
                      <Group gap={6}>
                        {key.name}
                        {secrets.has(key.id) && (
                          <Badge size="xs" variant="outline" color={tones.success} title="The secret is kept in this browser for Docs, Test and Data">
                            in this browser
                          </Badge>
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="outline" color={key.scope === 'read' ? 'gray.8' : 'indigo.8'}>
                        {key.scope === 'read' ? 'read' : 'read & write'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {secrets.has(key.id) ? (
                        // The browser holds this key's secret: copy the whole key, not the prefix.
                        <CopyValue value={secrets.get(key.id)!} what={`key ${key.name}`}>
                          <Text span className="mono" size="sm">
                            {key.prefix}…
                          </Text>
                        </CopyValue>
                      ) : (
                        <Text span className="mono" size="sm" title="The secret was shown once, when the key was made">
                          {key.prefix}…
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{formatDateTime(key.created_at)}</Table.Td>
                    <Table.Td>{key.last_used_at ? formatDateTime(key.last_used_at) : 'never'}</Table.Td>
                    <Table.Td>
                      <RoleGate need="developer" mode="hide">
                        <Button size="xs" variant="subtle" color={tones.danger} onClick={() => setRevoking(key)} aria-label={`Revoke key ${key.name}`}>
                          Revoke
                        </Button>
                      </RoleGate>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
      <RevokeKeyModal projectId={projectId} apiKey={revoking} onClose={() => setRevoking(null)} />
    </Paper>
  );
}

function CreateKeyForm({ projectId, onCreated }: { projectId: string; onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<KeyScope>('read_write');
  const create = useApiKeyCreateMutation();
  const details = isApiError(create.error) ? create.error.details : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return;
    create.mutate(
      { projectId, name: name.trim(), scope },
      {
        onSuccess: (key) => {
          setName('');
          onCreated(key);
        },
      },
    );
  };

  return (
    <form onSubmit={submit} aria-label="Create an API key">
      <Group align="flex-end" gap="sm" wrap="wrap">
        <TextInput label="Key name" placeholder="mobile app" value={name} onChange={(e) => setName(e.currentTarget.value)} error={details.name} required />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="scope-label">
            Scope
          </Text>
          <SegmentedControl
            aria-labelledby="scope-label"
            value={scope}
            onChange={(v) => setScope(v as KeyScope)}
            data={[
              { value: 'read_write', label: 'Read & write' },
              { value: 'read', label: 'Read only' },
            ]}
          />
        </Stack>
        <Button type="submit" leftSection={<IconKey size={16} />} loading={create.isPending} disabled={!name.trim()}>
          Create key
        </Button>
      </Group>
      {create.error && !Object.keys(details).length ? <ErrorAlert error={create.error} title="The key was not created" /> : null}
    </form>
  );
}

function CreatedKeyNotice({ created, onDismiss }: { created: CreatedApiKey; onDismiss: () => void }) {
  return (
    <Alert color="teal" variant="light" title={`Key "${created.name}" created: copy it now`} withCloseButton onClose={onDismiss} closeButtonLabel="Dismiss">
      <Stack gap="xs">
        <Text size="sm">The server shows this key only once. This browser keeps a copy for API Docs, Test and Data.</Text>
        <SecretBlock value={created.key} testId="created-key" />
      </Stack>
    </Alert>
  );
}

function RevokeKeyModal({ projectId, apiKey, onClose }: { projectId: string; apiKey: ApiKey | null; onClose: () => void }) {
  const revoke = useApiKeyRevokeMutation();
  return (
    <Modal opened={Boolean(apiKey)} onClose={onClose} title={`Revoke key ${apiKey?.name ?? ''}?`}>
      {apiKey && (
        <Stack gap="sm">
          <Text size="sm">
            Every request with the key <span className="mono">{apiKey.prefix}…</span> is answered 401 from now on. This cannot be undone;
            clients using it need a new key.
          </Text>
          {revoke.error ? <ErrorAlert error={revoke.error} title="The key was not revoked" /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Keep key
            </Button>
            <Button color={tones.danger} loading={revoke.isPending} onClick={() => revoke.mutate({ projectId, keyId: apiKey.id }, { onSuccess: onClose })}>
              Revoke key
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
