import { Alert, Anchor, Badge, Button, Code, Group, Paper, Stack, Table, Tabs, Text, Textarea, TextInput, Title } from '@mantine/core';
import { IconMail } from '@tabler/icons-react';
import { Fragment, useState, type FormEvent } from 'react';
import { isApiError } from '../../../api/client';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { RoleGate } from '../../../components/RoleGate';
import {
  KIND_LABELS,
  type MailTemplate,
  type OutboxMessage,
  splitLinks,
  useMailTemplateResetMutation,
  useMailTemplateSaveMutation,
  useMailTemplatesQuery,
  useOutboxQuery,
} from '../../../data/email/email';
import { formatDateTime } from '../../../lib/format';
import { roleNeeded } from '../../../lib/roles';
import { useCan } from '../useProjectRole';
import { useProjectId } from '../useProjectId';

const STATUS_COLORS: Record<string, string> = { queued: 'yellow', sent: 'green', logged: 'blue', failed: 'red' };

export function EmailPage() {
  const projectId = useProjectId();
  return (
    <Stack>
      <PageHeader
        title="Email"
        description="What your end users were sent (verification, password reset, e-mail change) and the wording of each message."
      />
      <Tabs defaultValue="outbox" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="outbox">Outbox</Tabs.Tab>
          <Tabs.Tab value="templates">Templates</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="outbox" pt="md">
          <Outbox projectId={projectId} />
        </Tabs.Panel>
        <Tabs.Panel value="templates" pt="md">
          <Templates projectId={projectId} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function Outbox({ projectId }: { projectId: string }) {
  // The outbox holds single-use links: a viewer does not read it (the API answers 403).
  if (!useCan('developer')) return <Text c="dimmed">{roleNeeded('developer')}</Text>;
  return <OutboxList projectId={projectId} />;
}

function OutboxList({ projectId }: { projectId: string }) {
  const query = useOutboxQuery(projectId);
  const [open, setOpen] = useState<number | null>(null);
  if (query.isPending) return <LoadingState label="Loading the outbox" />;
  if (query.isError) return <ErrorAlert error={query.error} />;
  const messages = query.data.pages.flatMap((page) => page.items);
  if (messages.length === 0) {
    return (
      <EmptyState icon={<IconMail size={28} />} title="No e-mail yet">
        Messages appear here when an end user registers (with e-mail verification on), asks for a password reset or
        changes their e-mail.
      </EmptyState>
    );
  }
  return (
    <Stack>
      {messages.some((m) => m.status === 'logged') && (
        <Alert color="blue" title="No mail server configured">
          This server has no <Code>smtp</Code> block, so messages are written to its log and kept here instead of being
          sent. Open a message to follow its link.
        </Alert>
      )}
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover aria-label="Outbox">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Queued</Table.Th>
              <Table.Th>To</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Subject</Table.Th>
              <Table.Th>Status</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {messages.map((m) => (
              <Fragment key={m.id}>
                <Table.Tr onClick={() => setOpen(open === m.id ? null : m.id)} style={{ cursor: 'pointer' }}>
                  <Table.Td>{formatDateTime(m.created_at)}</Table.Td>
                  <Table.Td>{m.to}</Table.Td>
                  <Table.Td>{KIND_LABELS[m.kind] ?? m.kind}</Table.Td>
                  <Table.Td>
                    <Anchor component="button" type="button" aria-expanded={open === m.id}>
                      {m.subject}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={STATUS_COLORS[m.status] ?? 'gray'} variant="light">
                      {m.status}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
                {open === m.id && (
                  <Table.Tr>
                    <Table.Td colSpan={5}>
                      <MessageBody message={m} />
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {query.hasNextPage && (
        <Button variant="default" onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage}>
          Older messages
        </Button>
      )}
    </Stack>
  );
}

function MessageBody({ message }: { message: OutboxMessage }) {
  return (
    <Stack gap="xs">
      {message.last_error && (
        <Text size="sm" c="red">
          Attempt {message.attempts}: {message.last_error}
        </Text>
      )}
      {message.text ? (
        <Text component="pre" size="sm" style={{ whiteSpace: 'pre-wrap', margin: 0 }} data-testid="outbox-text">
          {splitLinks(message.text).map((part, i) =>
            part.href ? (
              <Anchor key={i} href={part.href} target="_blank" rel="noreferrer">
                {part.text}
              </Anchor>
            ) : (
              <Fragment key={i}>{part.text}</Fragment>
            ),
          )}
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          The mail server took this message; its text (with a single-use link) is not kept.
        </Text>
      )}
    </Stack>
  );
}

function Templates({ projectId }: { projectId: string }) {
  const query = useMailTemplatesQuery(projectId);
  if (query.isPending) return <LoadingState label="Loading the templates" />;
  if (query.isError) return <ErrorAlert error={query.error} />;
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Write <Code>{'{{.Name}}'}</Code> for a value and <Code>{'{{if .Name}}…{{else}}…{{end}}'}</Code> for a part that
        depends on one; values are escaped in the HTML.
      </Text>
      {query.data.map((t) => (
        <TemplateForm key={`${t.kind}-${t.custom}`} projectId={projectId} template={t} />
      ))}
    </Stack>
  );
}

function TemplateForm({ projectId, template }: { projectId: string; template: MailTemplate }) {
  const [draft, setDraft] = useState({ subject: template.subject, text: template.text, html: template.html });
  const save = useMailTemplateSaveMutation();
  const reset = useMailTemplateResetMutation();
  const errors = isApiError(save.error) ? save.error.details : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ projectId, kind: template.kind, template: draft });
  };
  const label = KIND_LABELS[template.kind] ?? template.kind;
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-label={`${label} template`}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {label}
          </Title>
          <Badge variant="light" color={template.custom ? 'grape' : 'gray'}>
            {template.custom ? 'Custom' : 'Default'}
          </Badge>
        </Group>
        <TextInput label="Subject" value={draft.subject} error={errors.subject} onChange={(e) => setDraft({ ...draft, subject: e.currentTarget.value })} />
        <Textarea label="Text" autosize minRows={4} value={draft.text} error={errors.text} onChange={(e) => setDraft({ ...draft, text: e.currentTarget.value })} />
        <Textarea label="HTML" autosize minRows={4} value={draft.html} error={errors.html} onChange={(e) => setDraft({ ...draft, html: e.currentTarget.value })} />
        <Text size="xs" c="dimmed">
          Values: {template.variables.map((v) => `{{.${v}}}`).join(', ')}
        </Text>
        {save.isError && !isApiError(save.error, 'VALIDATION_ERROR') && <ErrorAlert error={save.error} />}
        {save.isSuccess && <Text size="sm" c="green">Saved: new messages use it.</Text>}
        <RoleGate need="developer">
          <Group>
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
            {template.custom && (
              <Button variant="default" loading={reset.isPending} onClick={() => reset.mutate({ projectId, kind: template.kind })}>
                Back to the default
              </Button>
            )}
          </Group>
        </RoleGate>
      </Stack>
    </Paper>
  );
}
