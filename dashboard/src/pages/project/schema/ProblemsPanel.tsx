import { Alert, Anchor, List, Text } from '@mantine/core';
import type { SchemaProblems } from '../../../builder/validation';
import { describePath } from '../../../builder/validation';
import type { SchemaDocument } from '../../../schema/document';

interface ProblemsPanelProps {
  problems: SchemaProblems;
  document: SchemaDocument;
  fromServer: boolean;
  /** Takes the user to the field of a problem path. */
  onSelectPath: (path: string) => void;
}

/** Every problem of the document in words, each leading to its field. */
export function ProblemsPanel({ problems, document, fromServer, onSelectPath }: ProblemsPanelProps) {
  const entries = Object.entries(problems);
  if (entries.length === 0) return null;
  return (
    <Alert
      color="red"
      variant="light"
      title={`${entries.length} ${entries.length === 1 ? 'problem' : 'problems'} to fix before generating${fromServer ? ' (found by the server)' : ''}`}
      aria-live="polite"
    >
      <List size="sm" spacing={2}>
        {entries.slice(0, 12).map(([path, message]) => {
          const tableIndex = /^tables\[(\d+)\]/.exec(path)?.[1];
          return (
            <List.Item key={path}>
              {tableIndex !== undefined ? (
                <Anchor component="button" type="button" size="sm" onClick={() => onSelectPath(path)}>
                  {describePath(document, path)}
                </Anchor>
              ) : (
                <Text span size="sm" fw={600}>
                  {describePath(document, path)}
                </Text>
              )}
              : {message}
            </List.Item>
          );
        })}
      </List>
      {entries.length > 12 && (
        <Text size="sm" mt={4}>
          …and {entries.length - 12} more.
        </Text>
      )}
    </Alert>
  );
}
