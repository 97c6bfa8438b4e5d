import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import { setSessionToken } from '../../api/session';
import type { Session } from '../../api/types';
import { accountKeys } from './keys';

export interface LoginVariables {
  email: string;
  password: string;
}

export function login(variables: LoginVariables): Promise<Session> {
  return apiRequest<Session>('/api/auth/login', { method: 'POST', body: variables, anonymous: true });
}

export function useLoginMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    onSuccess: (session) => {
      queryClient.clear();
      setSessionToken(session.token);
      queryClient.setQueryData(accountKeys.current(), session.account);
    },
  });
}
