import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Modal,
  MultiSelect,
  NumberInput,
  Paper,
  SegmentedControl,
  Stack,
  Switch,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { IconPlus, IconWebhook } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { isApiError } from '../../../api/client';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { SecretBlock } from '../../../components/SecretBlock';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { usePublishedSchemaQuery } from '../../../data/schema/schema-versions-query';
import {
  type CreatedWebhook,
  type Webhook,
  useDeliveriesQuery,
  useWebhookCreateMutation,
  useWebhookDeleteMutation,
  useWebhookReplayMutation,
  useWebhookRotateMutation,
  useWebhooksQuery,
  useWebhookUpdateMutation,
} from '../../../data/webhooks/webhooks';
import { formatDateTime } from '../../../lib/format';
import { tones } from '../../../tones';
import { useProjectId } from '../useProjectId';
import {
  awaitingText,
  deliveryOutcome,
  emptyForm,
  EVENTS,
  fieldErrors,
  formOf,
  replayBodyOf,
  specOf,
  tableLabel,
  type ReplayMode,
  type WebhookEvent,
  type WebhookForm,
} from './webhookForm';
import { RoleGate } from '../../../components/RoleGate';

/** A secret the server shows once: after a create or a rotation. */
interface ShownSecret {
  secret: string;
  rotated: boolean;
}

export function WebhooksPage() {
  const projectId = useProjectId();
  const hooks = useWebhooksQuery(projectId);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);

  const onSecret = (created: CreatedWebhook, rotated: boolean) => setShown({ secret: created.secret, rotated });

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Each committed change of the chosen tables is sent, signed, to a URL of yours (docs/webhooks.md)."
        actions={
          <RoleGate need="developer" mode="hide">
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New webhook
            </Button>
          </RoleGate>
        }
      />
      <Stack gap="md">
        {hooks.isPending && <LoadingState label="Loading webhooks…" />}
        {hooks.error ? <ErrorAlert error={hooks.error} title="Could not load the webhooks" /> : null}
        {hooks.data?.length === 0 && (
          <EmptyState title="No webhooks yet" icon={<IconWebhook size={28} />}>
            Add one to have the changes of your tables posted to your server as they commit.
          </EmptyState>
        )}
        {hooks.data?.map((hook) => (
          <WebhookCard
            key={hook.id}
            projectId={projectId}
            hook={hook}
            logOpen={logOf === hook.id}
            onToggleLog={() => setLogOf(logOf === hook.id ? null : hook.id)}
            onEdit={() => setEditing(hook)}
            onDelete={() => setDeleting(hook)}
            onRotated={(c) => onSecret(c, true)}
          />
        ))}
      </Stack>
      <WebhookFormModal
        projectId={projectId}
        opened={creating || editing !== null}
        hook={editing}
        onClose={() => {
          setCreating(false);
          setEditing(null);
        }}
        onCreated={(c) => onSecret(c, false)}
      />
      <SecretModal shown={shown} onClose={() => setShown(null)} />
      <DeleteModal projectId={projectId} hook={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}

function WebhookCard(props: {
  projectId: string;
  hook: Webhook;
  logOpen: boolean;
  onToggleLog: () => void;
  onEdit: () => void;
  onDelete: () => void;
  onRotated: (c: CreatedWebhook) => void;
}) {
  const { projectId, hook } = props;
  const update = useWebhookUpdateMutation();
  const rotate = useWebhookRotateMutation();
  const titleId = `webhook-${hook.id}`;
  const awaiting = awaitingText(hook);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={titleId}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Stack gap={2}>
            <Title order={2} size="h4" id={titleId} className="mono" style={{ wordBreak: 'break-all' }}>
              {hook.url}
            </Title>
            <Text size="sm" c="dimmed">
              {hook.tables.join(', ')} · {hook.events.join(', ')}
              {Object.keys(hook.where ?? {}).length > 0 && (
                <>
                  {' '}
                  · where <span className="mono">{JSON.stringify(hook.where)}</span>
                </>
              )}
            </Text>
          </Stack>
          <Badge variant="outline" color={hook.enabled ? tones.success : tones.danger}>
            {hook.enabled ? 'enabled' : 'disabled'}
          </Badge>
        </Group>
        {awaiting && (
          <Alert color={tones.info} variant="light" title="Capture starts at the next generate">
            {awaiting}
          </Alert>
        )}
        {!hook.enabled && hook.disabled_reason && (
          <Alert color={tones.danger} variant="light" title="Disabled by the server">
            {hook.disabled_reason}
          </Alert>
        )}
        {hook.enabled && hook.failing_since && (
          <Text size="sm" c={tones.danger}>
            Failing since {formatDateTime(hook.failing_since)} ({hook.attempts} attempts); next try {formatDateTime(hook.next_attempt_at)}.
          </Text>
        )}
        {hook.previous_secret_until && (
          <Text size="sm" c="dimmed">
            The previous secret still signs until {formatDateTime(hook.previous_secret_until)}.
          </Text>
        )}
        <Text size="sm" c="dimmed">
          Delivered up to change {hook.cursor} · created {formatDateTime(hook.created_at)}
        </Text>
        <Group gap="xs" wrap="wrap">
          <Switch
            label="Enabled"
            checked={hook.enabled}
            disabled={update.isPending}
            onChange={(e) => update.mutate({ projectId, webhookId: hook.id, spec: { enabled: e.currentTarget.checked } })}
            aria-label={`Enabled: ${hook.url}`}
          />
          <Button size="xs" variant="default" onClick={props.onToggleLog} aria-expanded={props.logOpen}>
            {props.logOpen ? 'Hide deliveries' : 'Deliveries'}
          </Button>
          <RoleGate need="developer" mode="hide">
            <Group gap="xs">
              <Button size="xs" variant="default" onClick={props.onEdit}>
                Edit
              </Button>
              <Button
                size="xs"
                variant="default"
                loading={rotate.isPending}
                onClick={() => rotate.mutate({ projectId, webhookId: hook.id }, { onSuccess: props.onRotated })}
              >
                Rotate secret
              </Button>
              <Button size="xs" variant="subtle" color={tones.danger} onClick={props.onDelete}>
                Delete
              </Button>
            </Group>
          </RoleGate>
        </Group>
        {update.error ? <ErrorAlert error={update.error} title="The webhook was not changed" /> : null}
        {rotate.error ? <ErrorAlert error={rotate.error} title="The secret was not rotated" /> : null}
        {props.logOpen && <DeliveryLog projectId={projectId} hook={hook} />}
      </Stack>
    </Paper>
  );
}

function DeliveryLog({ projectId, hook }: { projectId: string; hook: Webhook }) {
  const deliveries = useDeliveriesQuery(projectId, hook.id);
  const rows = deliveries.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <Stack gap="xs">
      <ReplayForm projectId={projectId} hook={hook} />
      {deliveries.isPending && <LoadingState label="Loading deliveries…" />}
      {deliveries.error ? <ErrorAlert error={deliveries.error} title="Could not load the deliveries" /> : null}
      {deliveries.data && rows.length === 0 && <Text size="sm">No deliveries yet: write to one of its tables.</Text>}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={760}>
          <Table verticalSpacing="xs" aria-label={`Deliveries of ${hook.url}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>At</Table.Th>
                <Table.Th>Change</Table.Th>
                <Table.Th>Attempt</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Latency</Table.Th>
                <Table.Th>Error / answer</Table.Th>
                <Table.Th>Next retry</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((d) => {
                const outcome = deliveryOutcome(d);
                return (
                  <Table.Tr key={d.id}>
                    <Table.Td>{formatDateTime(d.at)}</Table.Td>
                    <Table.Td>
                      <span className="mono">{d.change_id}</span> {d.event} {d.table}
                    </Table.Td>
                    <Table.Td>{d.attempt}</Table.Td>
                    <Table.Td>
                      <Badge variant="outline" color={outcome.ok ? tones.success : tones.danger}>
                        {outcome.label}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{d.latency_ms} ms</Table.Td>
                    <Table.Td>
                      {d.error && <Text size="sm">{d.error}</Text>}
                      {d.response && (
                        <Code block style={{ maxHeight: 96, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                          {d.response}
                        </Code>
                      )}
                    </Table.Td>
                    <Table.Td>{d.next_retry_at ? formatDateTime(d.next_retry_at) : '—'}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {deliveries.hasNextPage && (
        <Group>
          <Button variant="default" size="xs" onClick={() => void deliveries.fetchNextPage()} loading={deliveries.isFetchingNextPage}>
            Load older deliveries
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/** Replay from a change id or a time; there is no per-attempt retry (failed changes retry by themselves). */
function ReplayForm({ projectId, hook }: { projectId: string; hook: Webhook }) {
  const replay = useWebhookReplayMutation();
  const [mode, setMode] = useState<ReplayMode>('change');
  const [changeId, setChangeId] = useState<string | number>('');
  const [time, setTime] = useState('');
  const [local, setLocal] = useState<Record<string, string>>({});
  const [done, setDone] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = replayBodyOf(mode, changeId, time);
    if ('errors' in body) {
      setLocal(body.errors);
      return;
    }
    setLocal({});
    setDone('');
    const what = 'since' in body.from ? formatDateTime(body.from.since) : `change ${body.from.from_change_id}`;
    replay.mutate({ projectId, webhookId: hook.id, from: body.from }, { onSuccess: () => setDone(what) });
  };
  const details = { ...(isApiError(replay.error) ? replay.error.details : {}), ...local };
  const atField = details.from_change_id ?? details.since;
  return (
    <form onSubmit={submit} aria-label={`Replay ${hook.url}`}>
      <Group align="flex-end" gap="xs" wrap="wrap">
        <SegmentedControl
          aria-label="Replay from"
          value={mode}
          onChange={(v) => {
            setMode(v as ReplayMode);
            setLocal({});
          }}
          data={[
            { value: 'change', label: 'Change id' },
            { value: 'time', label: 'Time' },
          ]}
        />
        {mode === 'change' ? (
          <NumberInput
            label="Replay from change id"
            description="Deliver again every change from this one on"
            min={1}
            value={changeId}
            onChange={setChangeId}
            error={details.from_change_id}
            w={220}
          />
        ) : (
          <TextInput
            type="datetime-local"
            label="Replay from time"
            description="Your local time; every change committed from then on"
            value={time}
            onChange={(e) => setTime(e.currentTarget.value)}
            error={details.since}
            w={240}
          />
        )}
        <Button type="submit" variant="default" loading={replay.isPending}>
          Replay
        </Button>
      </Group>
      {replay.error && !atField ? <ErrorAlert error={replay.error} title="Nothing was replayed" /> : null}
      {done && (
        <Text size="sm" c={tones.success} role="status">
          Replaying from {done}.
        </Text>
      )}
    </form>
  );
}

function WebhookFormModal(props: { projectId: string; opened: boolean; hook: Webhook | null; onClose: () => void; onCreated: (c: CreatedWebhook) => void }) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.hook ? 'Edit webhook' : 'New webhook'} size="lg">
      {/* Mounted afresh on every opening so the fields start from the webhook (or empty). */}
      {props.opened && <WebhookFormBody {...props} />}
    </Modal>
  );
}

function WebhookFormBody({ projectId, hook, onClose, onCreated }: { projectId: string; hook: Webhook | null; onClose: () => void; onCreated: (c: CreatedWebhook) => void }) {
  const [form, setForm] = useState<WebhookForm>(hook ? formOf(hook) : emptyForm);
  const [local, setLocal] = useState<Record<string, string>>({});
  const schema = usePublishedSchemaQuery(projectId);
  const create = useWebhookCreateMutation();
  const update = useWebhookUpdateMutation();
  const mutation = hook ? update : create;
  const server = isApiError(mutation.error) ? fieldErrors(mutation.error.details) : {};
  const errors = { ...server, ...local };
  const tables = (schema.data?.tables ?? []).map((t) => ({ value: t.name, label: tableLabel(t) }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const built = specOf(form);
    if ('errors' in built) {
      setLocal(built.errors);
      return;
    }
    setLocal({});
    if (hook) {
      update.mutate({ projectId, webhookId: hook.id, spec: built.spec }, { onSuccess: onClose });
    } else {
      create.mutate(
        { projectId, spec: built.spec },
        {
          onSuccess: (created) => {
            onClose();
            onCreated(created);
          },
        },
      );
    }
  };

  return (
    <form onSubmit={submit} aria-label={hook ? 'Edit webhook' : 'Create a webhook'} noValidate>
      <Stack gap="sm">
        <TextInput
          label="URL"
          placeholder="https://example.com/hooks/tablesmith"
          value={form.url}
          onChange={(e) => setForm({ ...form, url: e.currentTarget.value })}
          error={errors.url}
          required
          data-autofocus
        />
        <MultiSelect
          label="Tables"
          description="Published tables; one without realtime capture gets it at the next generate, and its changes are delivered from then on"
          data={tables}
          value={form.tables}
          onChange={(v) => setForm({ ...form, tables: v })}
          error={errors.tables}
          searchable
          required
        />
        {schema.error ? <ErrorAlert error={schema.error} title="Could not load the tables" /> : null}
        <Checkbox.Group label="Events" value={form.events} onChange={(v) => setForm({ ...form, events: v as WebhookEvent[] })} error={errors.events} required>
          <Group gap="md" mt={4}>
            {EVENTS.map((e) => (
              <Checkbox key={e} value={e} label={e} />
            ))}
          </Group>
        </Checkbox.Group>
        <Textarea
          label="Condition (optional)"
          description='JSON, per table, in the realtime filter grammar: {"posts": "status=published"}'
          value={form.where}
          onChange={(e) => setForm({ ...form, where: e.currentTarget.value })}
          error={errors.where}
          autosize
          minRows={2}
          classNames={{ input: 'mono' }}
        />
        <Switch label="Enabled" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.currentTarget.checked })} />
        {mutation.error && Object.keys(server).length === 0 ? (
          <ErrorAlert error={mutation.error} title={hook ? 'The webhook was not changed' : 'The webhook was not created'} />
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            {hook ? 'Save webhook' : 'Create webhook'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function SecretModal({ shown, onClose }: { shown: ShownSecret | null; onClose: () => void }) {
  return (
    <Modal opened={shown !== null} onClose={onClose} title={shown?.rotated ? 'New signing secret' : 'Webhook created: copy its signing secret'} size="lg">
      {shown && (
        <Stack gap="sm">
          <Text size="sm" fw={600}>
            You will not see this secret again: the server shows it only once.
          </Text>
          {shown.rotated && <Text size="sm">The old secret keeps signing (beside the new one) for 24 hours, so receivers can switch.</Text>}
          <SecretBlock value={shown.secret} testId="webhook-secret" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              I have copied it
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function DeleteModal({ projectId, hook, onClose }: { projectId: string; hook: Webhook | null; onClose: () => void }) {
  const remove = useWebhookDeleteMutation();
  return (
    <Modal opened={hook !== null} onClose={onClose} title="Delete this webhook?">
      {hook && (
        <Stack gap="sm">
          <Text size="sm">
            <span className="mono">{hook.url}</span> receives nothing more, and its delivery log is deleted with it. This cannot be undone.
          </Text>
          {remove.error ? <ErrorAlert error={remove.error} title="The webhook was not deleted" /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Keep webhook
            </Button>
            <Button color={tones.danger} loading={remove.isPending} onClick={() => remove.mutate({ projectId, webhookId: hook.id }, { onSuccess: onClose })}>
              Delete webhook
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
