import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Session } from '../../api/types';
import { useStartSession } from './login-mutation';

/** A login's second step: exactly one of code and recovery_code. */
export interface MfaLoginVariables {
  mfa_token: string;
  code?: string;
  recovery_code?: string;
}

export function loginMfa(variables: MfaLoginVariables): Promise<Session> {
  return apiRequest<Session>('/api/auth/login/mfa', { method: 'POST', body: variables, anonymous: true });
}

export function useMfaLoginMutation() {
  const start = useStartSession();
  return useMutation({ mutationFn: loginMfa, onSuccess: start });
}
