import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import { setSessionToken } from '../../api/session';
import type { MfaRequired, Session } from '../../api/types';
import { accountKeys } from './keys';

export interface LoginVariables {
  email: string;
  password: string;
}

/** A session, or (two-factor on) the token of the second step. */
export type LoginResult = Session | MfaRequired;

export function login(variables: LoginVariables): Promise<LoginResult> {
  return apiRequest<LoginResult>('/api/auth/login', { method: 'POST', body: variables, anonymous: true });
}

export function isMfaRequired(result: LoginResult): result is MfaRequired {
  return 'mfa_required' in result && result.mfa_required === true;
}

/** Starts the session a login, a login's second step or a password reset answered. */
export function useStartSession() {
  const queryClient = useQueryClient();
  return (session: Session) => {
    queryClient.clear();
    setSessionToken(session.token);
    queryClient.setQueryData(accountKeys.current(), session.account);
  };
}

export function useLoginMutation() {
  const start = useStartSession();
  return useMutation({
    mutationFn: login,
    onSuccess: (result) => {
      if (!isMfaRequired(result)) start(result);
    },
  });
}
