import { Alert, List } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { describeError } from '../api/client';

interface ErrorAlertProps {
  error: unknown;
  title?: string;
}

/** An API error in words: its message, then each field's problem. */
export function ErrorAlert({ error, title }: ErrorAlertProps) {
  if (!error) return null;
  const { title: message, lines } = describeError(error);
  return (
    <Alert color="red" variant="light" icon={<IconAlertTriangle aria-hidden />} title={title ?? message} role="alert">
      {title ? <div>{message}</div> : null}
      {lines.length > 0 && (
        <List size="sm" mt={4}>
          {lines.map((line) => (
            <List.Item key={line}>{line}</List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}
