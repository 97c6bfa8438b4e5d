// The hosted pages that end users of a generated API reach from the links
// Tablesmith mails them (docs/end-user-auth.md): each reads project and
// token from its query and POSTs to /v1/<project>/auth/..., without a
// dashboard session.
import { useMutation } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { apiEnvelope } from '../../api/client';

/** The project and token a mailed link carries; missing ones are empty. */
export function useLinkParams(): { project: string; token: string } {
  const [params] = useSearchParams();
  return { project: params.get('project') ?? '', token: params.get('token') ?? '' };
}

/** POSTs body to /v1/<project>/auth/<route> and resolves to the answer's message. */
export function useEndUserAuth(project: string, route: string) {
  return useMutation({
    mutationFn: async (body: Record<string, string>) => {
      const path = `/v1/${encodeURIComponent(project)}/auth/${route}`;
      const answer = await apiEnvelope<unknown>(path, { method: 'POST', body, anonymous: true });
      return answer.message ?? 'Done';
    },
  });
}
