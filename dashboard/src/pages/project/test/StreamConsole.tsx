import { Badge, Button, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { isApiError, type ErrorBody } from '../../../api/client';
import { needsTicket, openStream, type StreamEvent, type StreamState } from '../../../api/realtime';
import { streamTicket } from '../../../data/records/live-records';
import { tones } from '../../../tones';

/** The newest events kept on screen; older ones scroll away for good. */
const MAX_EVENTS = 200;

const EVENT_COLORS: Record<StreamEvent['event'], string> = {
  create: tones.success,
  update: tones.info,
  delete: tones.danger,
  reset: tones.warning,
  reconnect: tones.info,
  error: tones.danger,
};

const STATE_TEXT: Record<StreamState, string> = {
  connecting: 'Opening the stream…',
  live: 'Open: events appear below as changes happen.',
  reconnecting: 'The connection dropped; reconnecting (missed changes follow).',
  stopped: 'Closed.',
};

/**
 * The Test page's answer area for the realtime operation: opens the stream
 * at urlFor(credential) and lists its events, newest first. The dashboard
 * session goes as a one-minute stream ticket, never itself in the URL.
 */
export function StreamConsole({ projectId, credential, urlFor }: { projectId: string; credential?: string; urlFor: (credential?: string) => string }) {
  const [state, setState] = useState<StreamState | 'idle'>('idle');
  const [events, setEvents] = useState<StreamEvent[]>([]);
  const [stopReason, setStopReason] = useState<ErrorBody | undefined>();
  const close = useRef<(() => void) | null>(null);

  // Closing the page (or choosing another operation) closes the stream.
  useEffect(() => () => close.current?.(), []);

  const open = async () => {
    close.current?.();
    close.current = null;
    setEvents([]);
    setStopReason(undefined);
    let streamCredential = credential;
    if (credential && needsTicket(credential)) {
      setState('connecting');
      try {
        streamCredential = await streamTicket(projectId);
      } catch (error) {
        setState('stopped');
        setStopReason(isApiError(error) ? { code: error.code, message: error.message } : { code: 'UNAVAILABLE', message: String(error) });
        return;
      }
    }
    close.current = openStream(urlFor(streamCredential), {
      onState: setState,
      onStopped: setStopReason,
      onEvent: (event) => setEvents((list) => [event, ...list].slice(0, MAX_EVENTS)),
    });
  };
  const stop = () => {
    close.current?.();
    close.current = null;
    setState('stopped');
  };
  const running = state === 'connecting' || state === 'live' || state === 'reconnecting';

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="stream-title">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} size="h5" id="stream-title">
            Stream
          </Title>
          <Group gap="xs">
            {running ? (
              <Button variant="default" leftSection={<IconPlayerStop size={16} />} onClick={stop}>
                Close
              </Button>
            ) : (
              <Button leftSection={<IconPlayerPlay size={16} />} onClick={() => void open()}>
                Open stream
              </Button>
            )}
          </Group>
        </Group>
        <Text size="sm" c="dimmed" role="status" data-testid="stream-state" data-state={state}>
          {state === 'idle'
            ? 'Not open. The credential goes in the URL, as a browser EventSource needs: a key as ?access_token=, your session as a one-minute stream ticket.'
            : stopReason
              ? `Stopped. ${stopReason.code}: ${stopReason.message}`
              : STATE_TEXT[state]}
        </Text>
        {events.length > 0 && (
          // Focusable so that keyboard users can scroll a long list.
          <div tabIndex={0} role="region" aria-label="Stream events, newest first" style={{ maxHeight: 480, overflowY: 'auto' }}>
            <Stack component="ol" gap="xs" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
              {events.map((e, i) => (
                <li key={`${e.id}-${e.event}-${events.length - i}`} data-testid="stream-event">
                  <Group gap="xs" mb={4}>
                    <Badge color={EVENT_COLORS[e.event]} variant="filled">
                      {e.event}
                    </Badge>
                    <Text size="sm" className="mono">
                      {e.id ? `id ${e.id}` : 'no id'}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {e.receivedAt.toLocaleTimeString()}
                    </Text>
                  </Group>
                  <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                    {typeof e.data === 'string' ? e.data : JSON.stringify(e.data, null, 2)}
                  </Code>
                </li>
              ))}
            </Stack>
          </div>
        )}
      </Stack>
    </Paper>
  );
}
