import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { apiRequest, isApiError, type ErrorBody } from '../../api/client';
import { needsTicket, openStream, realtimeUrl, type StreamState } from '../../api/realtime';
import { recordKeys } from './keys';

/** How long a burst of changes is gathered before the shown page is read again. */
export const LIVE_REFETCH_DELAY_MS = 300;

export interface LiveRecords {
  state: StreamState | 'off';
  error?: ErrorBody;
}

/** A one-minute ticket that opens the project's stream for the dashboard session. */
export async function streamTicket(projectId: string): Promise<string> {
  const answer = await apiRequest<{ ticket: string }>(`/api/projects/${encodeURIComponent(projectId)}/stream-tickets`, { method: 'POST' });
  return answer.ticket;
}

/** How often in a row a refused ticket stream is reopened with a new ticket. */
const TICKET_RETRIES = 3;

/**
 * Keeps a realtime table's pages current: while mounted it follows the
 * table's stream and, after each burst of changes (or a reset), reads the
 * shown page again. Reading again rather than patching rows keeps the page
 * true to its sort, filters, paging and embedded references.
 */
export function useLiveRecords(projectId: string, table: string, credential: string | undefined, enabled: boolean): LiveRecords {
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveRecords>({ state: 'off' });

  useEffect(() => {
    if (!enabled || !credential) {
      setLive({ state: 'off' });
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refetchSoon = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void queryClient.invalidateQueries({ queryKey: recordKeys.table(projectId, table) });
      }, LIVE_REFETCH_DELAY_MS);
    };
    let close = () => {};
    let cancelled = false;
    let retries = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    // The dashboard session opens the stream with a fresh ticket each
    // time: EventSource's own reconnects reuse the URL, so a refusal once
    // the ticket is over a minute old reopens with a new one.
    const start = async () => {
      let streamCredential = credential;
      if (needsTicket(credential)) {
        try {
          streamCredential = await streamTicket(projectId);
        } catch (error) {
          if (!cancelled) setLive({ state: 'stopped', error: isApiError(error) ? { code: error.code, message: error.message } : { code: 'UNAVAILABLE', message: String(error) } });
          return;
        }
      }
      if (cancelled) return;
      const ticketed = streamCredential !== credential;
      close = openStream(realtimeUrl(projectId, [['tables', table]], streamCredential), {
        onState: (state) => {
          if (state === 'live') retries = 0;
          setLive((current) => ({ state, error: state === 'stopped' ? current.error : undefined }));
        },
        onStopped: (error) => {
          if (ticketed && error.code === 'UNAUTHORIZED' && retries < TICKET_RETRIES && !cancelled) {
            retries++;
            setLive({ state: 'reconnecting' });
            retry = setTimeout(() => void start(), 500 * retries);
            return;
          }
          setLive({ state: 'stopped', error });
        },
        onEvent: (event) => {
          if (event.event !== 'error') refetchSoon();
        },
      });
    };
    void start();
    return () => {
      cancelled = true;
      close();
      if (timer) clearTimeout(timer);
      if (retry) clearTimeout(retry);
    };
  }, [projectId, table, credential, enabled, queryClient]);

  return live;
}
