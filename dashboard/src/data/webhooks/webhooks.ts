import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiEnvelope, apiRequest } from '../../api/client';
import { beforePage, beforeQuery, type BeforePage } from '../../api/pages';
import type { components } from '../../api/platform.gen';
import { webhookKeys } from './keys';

export type Webhook = components['schemas']['Webhook'];
export type WebhookSpec = components['schemas']['WebhookSpec'];
export type CreatedWebhook = Webhook & { secret: string };
export type Delivery = components['schemas']['DeliveryListEnvelope']['data'][number];
/** What replay takes: a change id or a time, never both. */
export type ReplayFrom = { from_change_id: number } | { since: string };

const base = (projectId: string) => `/api/projects/${encodeURIComponent(projectId)}/webhooks`;
const one = (projectId: string, webhookId: string) => `${base(projectId)}/${encodeURIComponent(webhookId)}`;

export function useWebhooksQuery(projectId: string) {
  return useQuery({
    queryKey: webhookKeys.list(projectId),
    queryFn: ({ signal }) => apiRequest<Webhook[]>(base(projectId), { signal }),
  });
}

/** How many attempts one page of the delivery log holds. */
export const DELIVERIES_PAGE = 50;

/** The delivery log in pages of 50, newest first, by the server's meta.next_before. */
export function useDeliveriesQuery(projectId: string, webhookId: string) {
  return useInfiniteQuery({
    queryKey: webhookKeys.deliveries(projectId, webhookId),
    queryFn: async ({ pageParam, signal }) =>
      beforePage(
        await apiEnvelope<Delivery[]>(`${one(projectId, webhookId)}/deliveries?${beforeQuery(DELIVERIES_PAGE, pageParam)}`, { signal }),
      ),
    initialPageParam: null as number | null,
    getNextPageParam: (last: BeforePage<Delivery>) => last.nextBefore,
    // New attempts arrive without the page doing anything: look again now and then.
    refetchInterval: 3000,
  });
}

/** Every mutation refreshes the project's list (and logs) when it succeeds. */
function useWebhookMutation<V extends { projectId: string }, R>(fn: (v: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (_data, { projectId }) => {
      void queryClient.invalidateQueries({ queryKey: webhookKeys.all(projectId) });
    },
  });
}

export function useWebhookCreateMutation() {
  return useWebhookMutation(({ projectId, spec }: { projectId: string; spec: WebhookSpec }) =>
    apiRequest<CreatedWebhook>(base(projectId), { method: 'POST', body: spec }),
  );
}

export function useWebhookUpdateMutation() {
  return useWebhookMutation(({ projectId, webhookId, spec }: { projectId: string; webhookId: string; spec: WebhookSpec }) =>
    apiRequest<Webhook>(one(projectId, webhookId), { method: 'PATCH', body: spec }),
  );
}

export function useWebhookDeleteMutation() {
  return useWebhookMutation(({ projectId, webhookId }: { projectId: string; webhookId: string }) =>
    apiRequest<unknown>(one(projectId, webhookId), { method: 'DELETE' }),
  );
}

export function useWebhookRotateMutation() {
  return useWebhookMutation(({ projectId, webhookId }: { projectId: string; webhookId: string }) =>
    apiRequest<CreatedWebhook>(`${one(projectId, webhookId)}/rotate-secret`, { method: 'POST' }),
  );
}

export function useWebhookReplayMutation() {
  return useWebhookMutation(({ projectId, webhookId, from }: { projectId: string; webhookId: string; from: ReplayFrom }) =>
    apiRequest<unknown>(`${one(projectId, webhookId)}/replay`, { method: 'POST', body: from }),
  );
}
