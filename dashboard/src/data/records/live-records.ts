import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ErrorBody } from '../../api/client';
import { openStream, realtimeUrl, type StreamState } from '../../api/realtime';
import { recordKeys } from './keys';

/** How long a burst of changes is gathered before the shown page is read again. */
export const LIVE_REFETCH_DELAY_MS = 300;

export interface LiveRecords {
  state: StreamState | 'off';
  error?: ErrorBody;
}

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
    const close = openStream(realtimeUrl(projectId, [['tables', table]], credential), {
      onState: (state) => setLive((current) => ({ state, error: state === 'stopped' ? current.error : undefined })),
      onStopped: (error) => setLive({ state: 'stopped', error }),
      onEvent: (event) => {
        if (event.event !== 'error') refetchSoon();
      },
    });
    return () => {
      close();
      if (timer) clearTimeout(timer);
    };
  }, [projectId, table, credential, enabled, queryClient]);

  return live;
}
