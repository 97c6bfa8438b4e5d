import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import { setSessionToken } from '../../api/session';
import type { Session } from '../../api/types';
import { accountKeys } from './keys';

export interface SignupVariables {
  email: string;
  password: string;
  name: string;
}

export function signup(variables: SignupVariables): Promise<Session> {
  return apiRequest<Session>('/api/auth/signup', { method: 'POST', body: variables, anonymous: true });
}

export function useSignupMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signup,
    onSuccess: (session) => {
      queryClient.clear();
      setSessionToken(session.token);
      queryClient.setQueryData(accountKeys.current(), session.account);
    },
  });
}
