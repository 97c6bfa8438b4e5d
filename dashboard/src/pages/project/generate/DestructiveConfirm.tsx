import { Alert, Checkbox, List, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { PlannedChange } from '../../../api/types';
import { tones } from '../../../tones';

interface DestructiveConfirmProps {
  changes: PlannedChange[];
  /** What the server listed in a DESTRUCTIVE_CHANGE refusal, when there was one. */
  refusal?: Record<string, string>;
  confirmed: boolean;
  onConfirmedChange: (confirmed: boolean) => void;
}

/** Names exactly what a generate will delete and asks for an explicit yes. */
export function DestructiveConfirm({ changes, refusal, confirmed, onConfirmedChange }: DestructiveConfirmProps) {
  const losses = changes.filter((c) => c.destructive);
  const extra = Object.entries(refusal ?? {}).filter(
    ([where]) => !losses.some((c) => where === c.table || where === `${c.table}.${c.column ?? ''}`),
  );
  return (
    <Alert color="red" variant="light" icon={<IconAlertTriangle aria-hidden />} title="This generate permanently deletes data">
      <Text size="sm" mb={4}>
        These changes cannot be undone; the data below is gone once the generate succeeds:
      </Text>
      <List size="sm" mb="sm">
        {losses.map((c, i) => (
          <List.Item key={`${c.table}.${c.column ?? ''}-${i}`}>
            <b className="mono">
              {c.table}
              {c.column ? `.${c.column}` : ''}
            </b>
            : {c.description}
          </List.Item>
        ))}
        {extra.map(([where, message]) => (
          <List.Item key={where}>
            <b className="mono">{where}</b>: {message}
          </List.Item>
        ))}
      </List>
      <Checkbox
        color={tones.danger}
        checked={confirmed}
        onChange={(e) => onConfirmedChange(e.currentTarget.checked)}
        label="I understand that this data will be permanently deleted"
      />
    </Alert>
  );
}
