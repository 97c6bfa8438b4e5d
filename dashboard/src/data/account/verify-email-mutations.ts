import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiEnvelope, apiRequest } from '../../api/client';
import { accountKeys } from './keys';

export interface EmailVerified {
  email: string;
  email_verified: boolean;
}

export function verifyEmail(token: string): Promise<EmailVerified> {
  return apiRequest<EmailVerified>('/api/auth/verify-email', { method: 'POST', body: { token }, anonymous: true });
}

/** Uses a verification link; a signed-in account (in this browser) is read again. */
export function useVerifyEmailMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: verifyEmail,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.current() }),
  });
}

export async function resendVerification(): Promise<string | undefined> {
  return (await apiEnvelope<unknown>('/api/account/verify-email/resend', { method: 'POST' })).message;
}

export function useResendVerificationMutation() {
  return useMutation({ mutationFn: resendVerification });
}
