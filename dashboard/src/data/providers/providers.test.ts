import { describe, expect, it } from 'vitest';
import { emptyProviderForm, providerForm, providerSpec, type AuthProvider } from './providers';

describe('providerSpec', () => {
  it('sends the issuer only for oidc, the tenant only for Microsoft and the secret only when typed', () => {
    const form = { ...emptyProviderForm(), kind: 'microsoft' as const, issuer: 'https://ignored', tenant: ' contoso.com ', clientId: ' abc ' };
    expect(providerSpec(form)).toEqual({ kind: 'microsoft', client_id: 'abc', enabled: true, tenant: 'contoso.com' });
    expect(providerSpec({ ...form, kind: 'oidc', issuer: ' https://login.example.com ', clientSecret: 's' })).toEqual({
      kind: 'oidc',
      client_id: 'abc',
      enabled: true,
      issuer: 'https://login.example.com',
      client_secret: 's',
    });
  });

  it('edits a stored provider without its secret and keeps its scopes', () => {
    const stored: AuthProvider = {
      name: 'corp',
      kind: 'oidc',
      issuer: 'https://login.example.com',
      client_id: 'abc',
      client_secret_set: true,
      scopes: ['openid', 'email'],
      enabled: false,
      redirect_uri: 'https://api.example.com/v1/p/auth/providers/corp/callback',
      created_at: '2026-11-29T00:00:00Z',
      updated_at: '2026-11-29T00:00:00Z',
    };
    const form = providerForm(stored);
    expect(form.clientSecret).toBe('');
    expect(providerSpec(form, stored.scopes)).toEqual({
      kind: 'oidc',
      client_id: 'abc',
      enabled: false,
      issuer: 'https://login.example.com',
      scopes: ['openid', 'email'],
    });
  });
});
