import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiEnvelope, apiRequest } from '../../api/client';
import { beforePage, beforeQuery, type BeforePage } from '../../api/pages';
import type { components } from '../../api/platform.gen';

export type OutboxMessage = components['schemas']['OutboxMessage'];
export type MailTemplate = components['schemas']['MailTemplate'];
export type MailTemplateKind = components['schemas']['MailTemplateKind'];
export type OutboxKind = components['schemas']['OutboxKind'];
export type MailTemplateInput = components['schemas']['MailTemplateInput'];

export const emailKeys = {
  all: (projectId: string) => ['email', projectId] as const,
  outbox: (projectId: string) => [...emailKeys.all(projectId), 'outbox'] as const,
  templates: (projectId: string) => [...emailKeys.all(projectId), 'templates'] as const,
};

const base = (projectId: string) => `/api/projects/${encodeURIComponent(projectId)}`;

/** How many messages one page of the outbox holds. */
export const OUTBOX_PAGE = 50;

/** The outbox, newest first, looked at again every few seconds: mail is queued by requests the page does not see. */
export function useOutboxQuery(projectId: string) {
  return useInfiniteQuery({
    queryKey: emailKeys.outbox(projectId),
    queryFn: async ({ pageParam, signal }) =>
      beforePage(await apiEnvelope<OutboxMessage[]>(`${base(projectId)}/outbox?${beforeQuery(OUTBOX_PAGE, pageParam)}`, { signal })),
    initialPageParam: null as number | null,
    getNextPageParam: (last: BeforePage<OutboxMessage>) => last.nextBefore,
    refetchInterval: 3000,
  });
}

export function useMailTemplatesQuery(projectId: string) {
  return useQuery({
    queryKey: emailKeys.templates(projectId),
    queryFn: ({ signal }) => apiRequest<MailTemplate[]>(`${base(projectId)}/mail-templates`, { signal }),
  });
}

function useTemplateMutation<V extends { projectId: string }>(fn: (v: V) => Promise<MailTemplate>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (_data, { projectId }) => {
      void queryClient.invalidateQueries({ queryKey: emailKeys.templates(projectId) });
    },
  });
}

export function useMailTemplateSaveMutation() {
  return useTemplateMutation(({ projectId, kind, template }: { projectId: string; kind: MailTemplateKind; template: MailTemplateInput }) =>
    apiRequest<MailTemplate>(`${base(projectId)}/mail-templates/${kind}`, { method: 'PUT', body: template }),
  );
}

export function useMailTemplateResetMutation() {
  return useTemplateMutation(({ projectId, kind }: { projectId: string; kind: MailTemplateKind }) =>
    apiRequest<MailTemplate>(`${base(projectId)}/mail-templates/${kind}`, { method: 'DELETE' }),
  );
}

/** What each kind is for, as the page names it: typed by the document's enum, so a kind the server adds fails the type check until it has a label. */
export const KIND_LABELS: Record<OutboxKind, string> = {
  verify_email: 'E-mail verification',
  password_reset: 'Password reset',
  email_change: 'E-mail change',
  email_changed: 'E-mail changed (notice to the old address)',
  invite: 'Invitation',
};

/** A message's text cut into plain parts and links, so the page can make the links clickable. */
export function splitLinks(text: string): { text: string; href?: string }[] {
  const out: { text: string; href?: string }[] = [];
  const pattern = /https?:\/\/[^\s"<>]+/g;
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    const start = m.index ?? 0;
    if (start > at) out.push({ text: text.slice(at, start) });
    out.push({ text: m[0], href: m[0] });
    at = start + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at) });
  return out;
}
