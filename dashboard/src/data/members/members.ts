import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiEnvelope, apiRequest } from '../../api/client';
import type { components } from '../../api/platform.gen';
import type { Project } from '../../api/types';
import { projectKeys } from '../projects/keys';
import { memberKeys } from './keys';

export type Member = components['schemas']['Member'];
export type MemberRole = components['schemas']['MemberRole'];
export type Invitation = components['schemas']['Invitation'];
export type AuditEntry = components['schemas']['AuditEntry'];

const base = (projectId: string) => `/api/projects/${encodeURIComponent(projectId)}`;

export function useMembersQuery(projectId: string) {
  return useQuery({
    queryKey: memberKeys.list(projectId),
    queryFn: ({ signal }) => apiRequest<Member[]>(`${base(projectId)}/members`, { signal }),
  });
}

export function useInvitationsQuery(projectId: string, enabled: boolean) {
  return useQuery({
    queryKey: memberKeys.invitations(projectId),
    queryFn: ({ signal }) => apiRequest<Invitation[]>(`${base(projectId)}/invitations`, { signal }),
    enabled,
  });
}

/** A members mutation refreshes the members, the invitations, the audit log and the project (its role). */
function useMembersMutation<V extends { projectId: string }, R>(fn: (v: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (_data, { projectId }) => {
      void queryClient.invalidateQueries({ queryKey: memberKeys.all(projectId) });
      void queryClient.invalidateQueries({ queryKey: memberKeys.audit(projectId) });
      void queryClient.invalidateQueries({ queryKey: projectKeys.all });
    },
  });
}

export function useInviteMutation() {
  return useMembersMutation(({ projectId, email, role }: { projectId: string; email: string; role: MemberRole }) =>
    apiRequest<Invitation>(`${base(projectId)}/members`, { method: 'POST', body: { email, role } }),
  );
}

export function useRevokeInvitationMutation() {
  return useMembersMutation(({ projectId, invitationId }: { projectId: string; invitationId: string }) =>
    apiRequest<unknown>(`${base(projectId)}/invitations/${encodeURIComponent(invitationId)}`, { method: 'DELETE' }),
  );
}

export function useMemberRoleMutation() {
  return useMembersMutation(({ projectId, accountId, role }: { projectId: string; accountId: number; role: MemberRole }) =>
    apiRequest<Member>(`${base(projectId)}/members/${accountId}`, { method: 'PATCH', body: { role } }),
  );
}

export function useRemoveMemberMutation() {
  return useMembersMutation(({ projectId, accountId }: { projectId: string; accountId: number }) =>
    apiRequest<unknown>(`${base(projectId)}/members/${accountId}`, { method: 'DELETE' }),
  );
}

export function useTransferMutation() {
  return useMembersMutation(({ projectId, accountId }: { projectId: string; accountId: number }) =>
    apiRequest<Project>(`${base(projectId)}/transfer`, { method: 'POST', body: { account_id: accountId } }),
  );
}

export function useAcceptInvitationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ token }: { token: string }) => apiRequest<Project>('/api/invites/accept', { method: 'POST', body: { token } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: projectKeys.all }),
  });
}

/** How many entries one page of the audit log holds. */
export const AUDIT_PAGE = 50;

/** The audit log in pages, newest first; meta.next_cursor names the next (older) page. */
export function useAuditQuery(projectId: string) {
  return useInfiniteQuery({
    queryKey: memberKeys.audit(projectId),
    queryFn: async ({ pageParam, signal }) => {
      const query = pageParam ? `limit=${AUDIT_PAGE}&before=${encodeURIComponent(pageParam)}` : `limit=${AUDIT_PAGE}`;
      const page = await apiEnvelope<AuditEntry[]>(`${base(projectId)}/audit?${query}`, { signal });
      const next = (page.meta as { next_cursor?: string | null } | undefined)?.next_cursor ?? null;
      return { entries: page.data, next };
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
  });
}
