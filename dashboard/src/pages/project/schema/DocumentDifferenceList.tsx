import { List, Text } from '@mantine/core';
import { isSameDocument, type DocumentDifference } from '../../../evolution/history';

const LIMIT = 8;

function names(list: string[]): string {
  const shown = list.slice(0, LIMIT).join(', ');
  return list.length > LIMIT ? `${shown} and ${list.length - LIMIT} more` : shown;
}

/** What replacing the draft changes in it, in a few lines. */
export function DocumentDifferenceList({ diff, sameText }: { diff: DocumentDifference; sameText: string }) {
  if (isSameDocument(diff)) {
    return <Text size="sm">{sameText}</Text>;
  }
  const lines: [string, string[]][] = [
    ['Tables removed from the draft', diff.removedTables],
    ['Columns removed from the draft', diff.removedColumns],
    ['Tables added', diff.addedTables],
    ['Columns added', diff.addedColumns],
    ['Columns with other settings', diff.changedColumns],
    ['Tables with other settings', diff.changedTables],
  ];
  return (
    <List size="sm" spacing={2}>
      {lines
        .filter(([, list]) => list.length > 0)
        .map(([label, list]) => (
          <List.Item key={label}>
            {label}: <span className="mono">{names(list)}</span>
          </List.Item>
        ))}
    </List>
  );
}
