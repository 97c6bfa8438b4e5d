import { useMutation } from '@tanstack/react-query';
import { apiEnvelope, apiRequest } from '../../api/client';
import type { Session } from '../../api/types';
import { useStartSession } from './login-mutation';

/** Asks for a reset link; the answer is the same whether or not the address has an account. */
export async function requestPasswordReset(email: string): Promise<string | undefined> {
  return (await apiEnvelope<unknown>('/api/auth/password-reset', { method: 'POST', body: { email }, anonymous: true })).message;
}

export function useRequestPasswordResetMutation() {
  return useMutation({ mutationFn: requestPasswordReset });
}

export interface ConfirmResetVariables {
  token: string;
  password: string;
}

export function confirmPasswordReset(variables: ConfirmResetVariables): Promise<Session> {
  return apiRequest<Session>('/api/auth/password-reset/confirm', { method: 'POST', body: variables, anonymous: true });
}

/** Sets the new password; the answer is a session, started at once. */
export function useConfirmPasswordResetMutation() {
  const start = useStartSession();
  return useMutation({ mutationFn: confirmPasswordReset, onSuccess: start });
}
