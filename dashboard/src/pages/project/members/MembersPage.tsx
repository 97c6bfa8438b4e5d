import { Alert, Badge, Button, Group, Modal, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconMail, IconUsers } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { isApiError } from '../../../api/client';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { LoadingState } from '../../../components/LoadingState';
import { PageHeader } from '../../../components/PageHeader';
import { useAccountQuery } from '../../../data/account/account-query';
import {
  type Member,
  type MemberRole,
  useInvitationsQuery,
  useInviteMutation,
  useMemberRoleMutation,
  useMembersQuery,
  useRemoveMemberMutation,
  useRevokeInvitationMutation,
  useTransferMutation,
} from '../../../data/members/members';
import { formatDate, formatDateTime } from '../../../lib/format';
import { atLeast, ROLE_SUMMARY, type Role } from '../../../lib/roles';
import { tones } from '../../../tones';
import { useProjectId } from '../useProjectId';
import { useProjectRole } from '../useProjectRole';

const ROLE_OPTIONS: { value: MemberRole; label: string }[] = [
  { value: 'viewer', label: 'Viewer' },
  { value: 'developer', label: 'Developer' },
  { value: 'admin', label: 'Admin' },
];

export function MembersPage() {
  const projectId = useProjectId();
  const role = useProjectRole();
  const admin = atLeast(role, 'admin');
  const members = useMembersQuery(projectId);
  const me = useAccountQuery();
  const [transferring, setTransferring] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);

  return (
    <Stack gap="md" maw={1000}>
      <PageHeader title="Members" description="Who works on this project, and what each may do." />
      {admin && <InviteForm projectId={projectId} />}
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Title order={2} size="h4">
            <Group gap="xs" component="span">
              <IconUsers size={18} aria-hidden /> Members
            </Group>
          </Title>
          {members.isPending && <LoadingState label="Loading members…" />}
          {members.error && <ErrorAlert error={members.error} title="Could not load the members" />}
          {members.data && (
            <Table.ScrollContainer minWidth={640}>
              <Table verticalSpacing="xs" aria-label="Members">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Member</Table.Th>
                    <Table.Th>Role</Table.Th>
                    <Table.Th>Since</Table.Th>
                    <Table.Th aria-label="Actions" />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {members.data.map((m) => (
                    <MemberRow
                      key={m.account_id}
                      projectId={projectId}
                      member={m}
                      self={m.account_id === me.data?.id}
                      callerRole={role}
                      onTransfer={() => setTransferring(m)}
                      onRemove={() => setRemoving(m)}
                    />
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          <Stack gap={2}>
            {(Object.keys(ROLE_SUMMARY) as Role[]).map((r) => (
              <Text size="xs" c="dimmed" key={r}>
                <b>{r}</b>: {ROLE_SUMMARY[r]}
              </Text>
            ))}
          </Stack>
        </Stack>
      </Paper>
      {admin && <InvitationsSection projectId={projectId} />}
      <TransferModal projectId={projectId} member={transferring} onClose={() => setTransferring(null)} />
      <RemoveModal projectId={projectId} member={removing} self={removing?.account_id === me.data?.id} onClose={() => setRemoving(null)} />
    </Stack>
  );
}

function MemberRow(props: {
  projectId: string;
  member: Member;
  self: boolean;
  callerRole: Role | undefined;
  onTransfer: () => void;
  onRemove: () => void;
}) {
  const { projectId, member, self, callerRole, onTransfer, onRemove } = props;
  const change = useMemberRoleMutation();
  const isOwner = member.role === 'owner';
  const canManage = atLeast(callerRole, 'admin') && !isOwner;
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm" fw={500}>
          {member.name || member.email} {self && <Badge size="xs" variant="light">you</Badge>}
        </Text>
        {member.name && (
          <Text size="xs" c="dimmed">
            {member.email}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {canManage ? (
          <Select
            size="xs"
            w={140}
            aria-label={`Role of ${member.email}`}
            data={ROLE_OPTIONS}
            value={member.role}
            allowDeselect={false}
            disabled={change.isPending}
            onChange={(v) => v && v !== member.role && change.mutate({ projectId, accountId: member.account_id, role: v as MemberRole })}
            error={change.error ? change.error.message : undefined}
          />
        ) : (
          <Badge variant={isOwner ? 'filled' : 'light'}>{member.role}</Badge>
        )}
      </Table.Td>
      <Table.Td>
        <Text size="sm">{formatDate(member.added_at)}</Text>
      </Table.Td>
      <Table.Td>
        <Group gap="xs" justify="flex-end" wrap="nowrap">
          {callerRole === 'owner' && !isOwner && (
            <Button size="xs" variant="subtle" onClick={onTransfer}>
              Make owner
            </Button>
          )}
          {self && !isOwner && (
            <Button size="xs" variant="subtle" color={tones.danger} onClick={onRemove}>
              Leave project
            </Button>
          )}
          {!self && canManage && (
            <Button size="xs" variant="subtle" color={tones.danger} onClick={onRemove} aria-label={`Remove ${member.email}`}>
              Remove
            </Button>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

function InviteForm({ projectId }: { projectId: string }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('developer');
  const invite = useInviteMutation();
  const details = isApiError(invite.error) ? invite.error.details : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!email.trim()) return;
    invite.mutate(
      { projectId, email: email.trim(), role },
      {
        onSuccess: (inv) => {
          setEmail('');
          notifications.show({ message: `Invitation sent to ${inv.email}`, color: 'green' });
        },
      },
    );
  };

  return (
    <Paper withBorder p="md">
      <form onSubmit={submit} aria-label="Invite a member">
        <Stack gap="sm">
          <Title order={2} size="h4">
            Invite a member
          </Title>
          <Group align="flex-start" gap="sm" wrap="wrap">
            <TextInput
              label="E-mail"
              type="email"
              placeholder="teammate@example.com"
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={details.email}
              required
              w={280}
            />
            <Select
              label="Role"
              data={ROLE_OPTIONS}
              value={role}
              allowDeselect={false}
              onChange={(v) => v && setRole(v as MemberRole)}
              error={details.role}
              w={160}
            />
            <Button type="submit" mt={25} leftSection={<IconMail size={16} />} loading={invite.isPending} disabled={!email.trim()}>
              Send invitation
            </Button>
          </Group>
          <Text size="xs" c="dimmed">
            The link in the e-mail works once, for 7 days, for an account with that address (they can sign up first).
          </Text>
          {invite.error && !Object.keys(details).length ? <ErrorAlert error={invite.error} title="The invitation was not sent" /> : null}
        </Stack>
      </form>
    </Paper>
  );
}

function InvitationsSection({ projectId }: { projectId: string }) {
  const invitations = useInvitationsQuery(projectId, true);
  const revoke = useRevokeInvitationMutation();
  const now = Date.now();
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Pending invitations
        </Title>
        {invitations.isPending && <LoadingState label="Loading invitations…" />}
        {invitations.error && <ErrorAlert error={invitations.error} title="Could not load the invitations" />}
        {invitations.data?.length === 0 && (
          <Text size="sm" c="dimmed">
            No pending invitations.
          </Text>
        )}
        {invitations.data && invitations.data.length > 0 && (
          <Table verticalSpacing="xs" aria-label="Pending invitations">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>E-mail</Table.Th>
                <Table.Th w={120}>Role</Table.Th>
                <Table.Th>Invited by</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th aria-label="Actions" />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {invitations.data.map((inv) => {
                const expired = new Date(inv.expires_at).getTime() <= now;
                return (
                  <Table.Tr key={inv.id}>
                    <Table.Td>{inv.email}</Table.Td>
                    <Table.Td>
                      <Badge variant="light">{inv.role}</Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{inv.inviter_email || '—'}</Text>
                    </Table.Td>
                    <Table.Td>
                      {expired ? (
                        <Badge color="gray" variant="light">
                          expired
                        </Badge>
                      ) : (
                        <Text size="sm">{formatDateTime(inv.expires_at)}</Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Group justify="flex-end">
                        <Button
                          size="xs"
                          variant="subtle"
                          color={tones.danger}
                          loading={revoke.isPending && revoke.variables?.invitationId === inv.id}
                          onClick={() => revoke.mutate({ projectId, invitationId: inv.id })}
                          aria-label={`Revoke the invitation of ${inv.email}`}
                        >
                          Revoke
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )}
        {revoke.error && <ErrorAlert error={revoke.error} title="The invitation was not revoked" />}
      </Stack>
    </Paper>
  );
}

function TransferModal({ projectId, member, onClose }: { projectId: string; member: Member | null; onClose: () => void }) {
  const transfer = useTransferMutation();
  const close = () => {
    transfer.reset();
    onClose();
  };
  return (
    <Modal opened={member !== null} onClose={close} title="Transfer the project">
      {member && (
        <Stack gap="sm">
          <Text size="sm">
            <b>{member.email}</b> becomes the owner: the project counts against their plan, and only they can delete or transfer it.
            You stay as an admin.
          </Text>
          {transfer.error && <ErrorAlert error={transfer.error} title="The project was not transferred" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button
              color={tones.danger}
              loading={transfer.isPending}
              onClick={() => transfer.mutate({ projectId, accountId: member.account_id }, { onSuccess: close })}
            >
              Transfer to {member.email}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function RemoveModal({ projectId, member, self, onClose }: { projectId: string; member: Member | null; self: boolean; onClose: () => void }) {
  const remove = useRemoveMemberMutation();
  const navigate = useNavigate();
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <Modal opened={member !== null} onClose={close} title={self ? 'Leave the project' : 'Remove a member'}>
      {member && (
        <Stack gap="sm">
          <Alert color="yellow" variant="light">
            {self
              ? 'You lose access to this project at once; an admin can invite you again.'
              : `${member.email} loses access to this project at once.`}
          </Alert>
          {remove.error && <ErrorAlert error={remove.error} title="Nothing was changed" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button
              color={tones.danger}
              loading={remove.isPending}
              onClick={() =>
                remove.mutate(
                  { projectId, accountId: member.account_id },
                  {
                    onSuccess: () => {
                      close();
                      if (self) navigate('/projects', { replace: true });
                    },
                  },
                )
              }
            >
              {self ? 'Leave project' : `Remove ${member.email}`}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
