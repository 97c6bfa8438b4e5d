import { Badge, Button, Group, Modal, Paper, PasswordInput, Select, Stack, Switch, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPlus } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { isApiError } from '../../../api/client';
import type { Project } from '../../../api/types';
import { CopyValue } from '../../../components/CopyValue';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import {
  PROVIDER_KINDS,
  emptyProviderForm,
  providerForm,
  providerSpec,
  useProviderDeleteMutation,
  useProviderPutMutation,
  useProvidersQuery,
  type AuthProvider,
  type ProviderForm,
  type ProviderKind,
} from '../../../data/providers/providers';
import { tones } from '../../../tones';

const kindLabel = (kind: string) => PROVIDER_KINDS.find((k) => k.value === kind)?.label.replace(/ \(.*\)$/, '') ?? kind;

/** Where a provider sends end users back: what the owner registers at the provider. */
const callbackURL = (project: Project, name: string) => `${project.api_base_url}/auth/providers/${name || '<name>'}/callback`;

/**
 * End users sign in with Google, Microsoft, Apple, GitHub or any OpenID
 * Connect provider the owner configures here (docs/end-user-auth.md, "Sign
 * in with providers"). The client secret is write-only.
 */
export function SignInProvidersSection({ project }: { project: Project }) {
  const providers = useProvidersQuery(project.id);
  const [editing, setEditing] = useState<AuthProvider | 'new' | null>(null);
  const [deleting, setDeleting] = useState<AuthProvider | null>(null);

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="providers-title">
      <Stack gap="md">
        <Group justify="space-between" align="flex-start">
          <div>
            <Title order={2} size="h4" id="providers-title">
              Sign-in providers
            </Title>
            <Text size="sm" c="dimmed">
              End users sign in through <span className="mono">/auth/providers/&lt;name&gt;/authorize?redirect_to=…</span> and get the same tokens
              as a password login. redirect_to must be one of the allowed origins above.
            </Text>
          </div>
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
            Add provider
          </Button>
        </Group>
        {providers.isPending && <LoadingState label="Loading providers…" />}
        {providers.error ? <ErrorAlert error={providers.error} title="Could not load the providers" /> : null}
        {providers.data?.length === 0 && <Text size="sm">No providers yet.</Text>}
        {providers.data && providers.data.length > 0 && (
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="xs" aria-label="Sign-in providers">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Kind</Table.Th>
                  <Table.Th>Client id</Table.Th>
                  <Table.Th>Redirect URI</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {providers.data.map((p) => (
                  <Table.Tr key={p.name}>
                    <Table.Td>
                      <Group gap={6}>
                        <span className="mono">{p.name}</span>
                        {!p.enabled && (
                          <Badge size="xs" variant="outline" color="gray.8">
                            disabled
                          </Badge>
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td>{kindLabel(p.kind)}</Table.Td>
                    <Table.Td className="mono">{p.client_id}</Table.Td>
                    <Table.Td>
                      <CopyValue value={p.redirect_uri} what={`redirect URI of ${p.name}`} />
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        <Button size="xs" variant="subtle" onClick={() => setEditing(p)} aria-label={`Edit provider ${p.name}`}>
                          Edit
                        </Button>
                        <Button size="xs" variant="subtle" color={tones.danger} onClick={() => setDeleting(p)} aria-label={`Delete provider ${p.name}`}>
                          Delete
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={editing === 'new' ? 'Add a sign-in provider' : `Edit provider ${editing?.name ?? ''}`} size="lg">
        {editing !== null && (
          <ProviderEditor
            key={editing === 'new' ? 'new' : editing.name}
            project={project}
            stored={editing === 'new' ? null : editing}
            onDone={() => setEditing(null)}
          />
        )}
      </Modal>
      <DeleteProviderModal projectId={project.id} provider={deleting} onClose={() => setDeleting(null)} />
    </Paper>
  );
}

function ProviderEditor({ project, stored, onDone }: { project: Project; stored: AuthProvider | null; onDone: () => void }) {
  const [form, setForm] = useState<ProviderForm>(stored ? providerForm(stored) : emptyProviderForm());
  const save = useProviderPutMutation();
  const details = isApiError(save.error) ? save.error.details : {};
  const set = (patch: Partial<ProviderForm>) => setForm((f) => ({ ...f, ...patch }));
  const preset = PROVIDER_KINDS.find((k) => k.value === form.kind);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { projectId: project.id, name: form.name.trim(), spec: providerSpec(form, stored && stored.kind === form.kind ? stored.scopes : undefined) },
      {
        onSuccess: () => {
          notifications.show({ color: 'teal', message: `Provider ${form.name.trim()} saved` });
          onDone();
        },
      },
    );
  };

  return (
    <form onSubmit={submit} aria-label="Sign-in provider">
      <Stack gap="sm">
        <Select
          label="Kind"
          data={PROVIDER_KINDS.map(({ value, label }) => ({ value, label }))}
          value={form.kind}
          onChange={(v) => v && set({ kind: v as ProviderKind, name: stored || form.name ? form.name : v })}
          allowDeselect={false}
          error={details.kind}
        />
        <TextInput
          label="Name"
          description="A lower-case slug in the sign-in URLs, such as google or company-sso"
          value={form.name}
          onChange={(e) => set({ name: e.currentTarget.value })}
          disabled={Boolean(stored)}
          error={details.name}
          required
          classNames={{ input: 'mono' }}
        />
        {form.kind === 'oidc' && (
          <TextInput
            label="Issuer"
            description="The provider's issuer URL; its /.well-known/openid-configuration must be reachable"
            placeholder="https://login.example.com"
            value={form.issuer}
            onChange={(e) => set({ issuer: e.currentTarget.value })}
            error={details.issuer}
            required
            classNames={{ input: 'mono' }}
          />
        )}
        {form.kind === 'microsoft' && (
          <TextInput
            label="Tenant"
            description="Your directory (tenant) id or domain; empty for common (any work, school or personal account)"
            placeholder="common"
            value={form.tenant}
            onChange={(e) => set({ tenant: e.currentTarget.value })}
            error={details.tenant}
            classNames={{ input: 'mono' }}
          />
        )}
        {preset?.issuer && (
          <Text size="sm" c="dimmed">
            Issuer: <span className="mono">{preset.issuer}</span>
          </Text>
        )}
        <TextInput
          label="Client id"
          value={form.clientId}
          onChange={(e) => set({ clientId: e.currentTarget.value })}
          error={details.client_id}
          required
          classNames={{ input: 'mono' }}
        />
        <PasswordInput
          label="Client secret"
          description={stored?.client_secret_set ? 'A secret is stored and never shown; leave empty to keep it' : 'Stored encrypted; never shown again'}
          value={form.clientSecret}
          onChange={(e) => set({ clientSecret: e.currentTarget.value })}
          error={details.client_secret}
          required={!stored}
          autoComplete="new-password"
        />
        <Switch label="Enabled" checked={form.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} />
        <Stack gap={2}>
          <Text size="sm" fw={500}>
            Redirect URI to register at the provider
          </Text>
          <CopyValue value={callbackURL(project, form.name.trim())} what="redirect URI" />
        </Stack>
        {details.scopes ? <Text size="sm" c={tones.danger}>Scopes: {details.scopes}</Text> : null}
        {save.error && !Object.keys(details).length ? <ErrorAlert error={save.error} title="The provider was not saved" /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending} disabled={!form.name.trim() || !form.clientId.trim()}>
            Save provider
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function DeleteProviderModal({ projectId, provider, onClose }: { projectId: string; provider: AuthProvider | null; onClose: () => void }) {
  const remove = useProviderDeleteMutation();
  return (
    <Modal opened={Boolean(provider)} onClose={onClose} title={`Delete provider ${provider?.name ?? ''}?`}>
      {provider && (
        <Stack gap="sm">
          <Text size="sm">
            End users can no longer sign in with <span className="mono">{provider.name}</span>, and the links between their accounts and this
            provider are forgotten. Their accounts and data stay; adding the provider again links them by verified e-mail.
          </Text>
          {remove.error ? <ErrorAlert error={remove.error} title="The provider was not deleted" /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Keep provider
            </Button>
            <Button color={tones.danger} loading={remove.isPending} onClick={() => remove.mutate({ projectId, name: provider.name }, { onSuccess: onClose })}>
              Delete provider
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
