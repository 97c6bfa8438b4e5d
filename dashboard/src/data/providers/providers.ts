import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { components } from '../../api/platform.gen';
import { providerKeys } from './keys';

export type AuthProvider = components['schemas']['AuthProvider'];
export type AuthProviderSpec = components['schemas']['AuthProviderSpec'];
export type ProviderKind = AuthProviderSpec['kind'];

const base = (projectId: string) => `/api/projects/${encodeURIComponent(projectId)}/auth/providers`;
const one = (projectId: string, name: string) => `${base(projectId)}/${encodeURIComponent(name)}`;

export function useProvidersQuery(projectId: string) {
  return useQuery({
    queryKey: providerKeys.list(projectId),
    queryFn: ({ signal }) => apiRequest<AuthProvider[]>(base(projectId), { signal }),
  });
}

export interface ProviderPutVariables {
  projectId: string;
  name: string;
  spec: AuthProviderSpec;
}

export function useProviderPutMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, name, spec }: ProviderPutVariables) =>
      apiRequest<AuthProvider>(one(projectId, name), { method: 'PUT', body: spec }),
    onSuccess: (_data, { projectId }) => void queryClient.invalidateQueries({ queryKey: providerKeys.all(projectId) }),
  });
}

export function useProviderDeleteMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, name }: { projectId: string; name: string }) => apiRequest(one(projectId, name), { method: 'DELETE' }),
    onSuccess: (_data, { projectId }) => void queryClient.invalidateQueries({ queryKey: providerKeys.all(projectId) }),
  });
}

/** The kinds the form offers, with what each needs. */
export const PROVIDER_KINDS: { value: ProviderKind; label: string; issuer?: string }[] = [
  { value: 'google', label: 'Google', issuer: 'https://accounts.google.com' },
  { value: 'microsoft', label: 'Microsoft (Entra ID)' },
  { value: 'apple', label: 'Apple', issuer: 'https://appleid.apple.com' },
  { value: 'github', label: 'GitHub (OAuth, untested against GitHub)' },
  { value: 'oidc', label: 'Any OpenID Connect provider' },
];

/** What the form edits; the secret is empty unless the owner types a new one. */
export interface ProviderForm {
  name: string;
  kind: ProviderKind;
  issuer: string;
  tenant: string;
  clientId: string;
  clientSecret: string;
  enabled: boolean;
}

export function emptyProviderForm(): ProviderForm {
  return { name: '', kind: 'google', issuer: '', tenant: '', clientId: '', clientSecret: '', enabled: true };
}

export function providerForm(p: AuthProvider): ProviderForm {
  return {
    name: p.name,
    kind: p.kind,
    issuer: p.kind === 'oidc' ? p.issuer : '',
    tenant: p.tenant ?? '',
    clientId: p.client_id,
    clientSecret: '',
    enabled: p.enabled,
  };
}

/**
 * The PUT body of a form: the issuer only for oidc, the tenant only for
 * Microsoft, and the secret only when one was typed (omitted, the server
 * keeps the stored one). Scopes are left to the kind's defaults, or kept
 * as they are when editing.
 */
export function providerSpec(form: ProviderForm, scopes?: string[]): AuthProviderSpec {
  const spec: AuthProviderSpec = { kind: form.kind, client_id: form.clientId.trim(), enabled: form.enabled };
  if (form.kind === 'oidc') spec.issuer = form.issuer.trim();
  if (form.kind === 'microsoft' && form.tenant.trim()) spec.tenant = form.tenant.trim();
  if (form.clientSecret) spec.client_secret = form.clientSecret;
  if (scopes) spec.scopes = scopes;
  return spec;
}
