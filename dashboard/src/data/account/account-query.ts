import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../api/client';
import type { Account } from '../../api/types';
import { accountKeys } from './keys';

export function getAccount(signal?: AbortSignal): Promise<Account> {
  return apiRequest<Account>('/api/account', { signal });
}

export function useAccountQuery(enabled = true) {
  return useQuery({ queryKey: accountKeys.current(), queryFn: ({ signal }) => getAccount(signal), enabled });
}
