import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Session } from '../../api/types';
import { useStartSession } from './login-mutation';
import { accountKeys } from './keys';

export interface ChangePasswordVariables {
  current_password: string;
  new_password: string;
}

/** Changes the password; every other session ends, this browser gets a fresh one. */
export function useChangePasswordMutation() {
  const start = useStartSession();
  return useMutation({
    mutationFn: (variables: ChangePasswordVariables) => apiRequest<Session>('/api/account/password', { method: 'POST', body: variables }),
    onSuccess: start,
  });
}

export interface TotpEnrolment {
  secret: string;
  otpauth_url: string;
}

export function useStartTotpMutation() {
  return useMutation({ mutationFn: () => apiRequest<TotpEnrolment>('/api/account/totp', { method: 'POST' }) });
}

export interface RecoveryCodes {
  recovery_codes: string[];
}

/** Turns the enrolment on with a code; answers the recovery codes, shown once. */
export function useConfirmTotpMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => apiRequest<RecoveryCodes>('/api/account/totp/confirm', { method: 'POST', body: { code } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.current() }),
  });
}

export interface DisableTotpVariables {
  password: string;
  code: string;
}

export function useDisableTotpMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variables: DisableTotpVariables) => apiRequest<unknown>('/api/account/totp', { method: 'DELETE', body: variables }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.current() }),
  });
}

export function useRegenerateRecoveryCodesMutation() {
  return useMutation({
    mutationFn: (code: string) => apiRequest<RecoveryCodes>('/api/account/totp/recovery-codes', { method: 'POST', body: { code } }),
  });
}
