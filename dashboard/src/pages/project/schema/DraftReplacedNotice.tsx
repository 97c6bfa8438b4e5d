import { Alert, Anchor, Text } from '@mantine/core';
import { IconFileCheck, IconFileAlert } from '@tabler/icons-react';
import { Link } from 'react-router';
import { describePath } from '../../../builder/validation';
import { sortedProblems } from '../../../evolution/schemaFile';
import type { SchemaDocument } from '../../../schema/document';

export interface DraftReplacement {
  /** What replaced the draft, e.g. `Uploaded blog-schema.json` or `Reset to version 1`. */
  title: string;
  document: SchemaDocument;
  problems: Record<string, string>;
  hasUnpublishedChanges: boolean;
}

interface DraftReplacedNoticeProps {
  replacement: DraftReplacement;
  projectId: string;
  onSelectTable: (index: number) => void;
  onDismiss: () => void;
}

/**
 * After an upload or a reset: the draft is now the new document. Says
 * whether the server accepts it (its problems are listed by the problems
 * panel and marked at their fields) and what is left to do: generate, or
 * nothing.
 */
export function DraftReplacedNotice({ replacement, projectId, onSelectTable, onDismiss }: DraftReplacedNoticeProps) {
  const problems = sortedProblems(replacement.problems);
  const firstPath = problems[0]?.[0];
  const valid = firstPath === undefined;
  const first = valid ? undefined : /^tables\[(\d+)\]/.exec(firstPath)?.[1];
  const firstTable = first === undefined ? undefined : Number(first);
  return (
    <Alert
      color={valid ? 'teal' : 'red'}
      variant="light"
      icon={valid ? <IconFileCheck aria-hidden /> : <IconFileAlert aria-hidden />}
      title={`${replacement.title}: it is now the draft`}
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={onDismiss}
      role="status"
      data-testid="draft-replaced"
    >
      {valid ? (
        <Text size="sm">
          The server accepts it.{' '}
          {replacement.hasUnpublishedChanges ? (
            <>
              Nothing changed in the database yet:{' '}
              <Anchor component={Link} to={`/projects/${projectId}/generate`} size="sm">
                review the plan and generate
              </Anchor>{' '}
              to apply it.
            </>
          ) : (
            'It matches the published schema, so there is nothing to generate.'
          )}
        </Text>
      ) : (
        <Text size="sm">
          It was saved, but the server found {problems.length === 1 ? 'a problem' : `${problems.length} problems`} to fix before it can be
          generated, first at{' '}
          <Anchor component="button" type="button" size="sm" onClick={() => onSelectTable(firstTable ?? 0)}>
            {describePath(replacement.document, firstPath ?? '')}
          </Anchor>
          . {problems.length === 1 ? 'It is' : 'They are'} listed below and marked at {problems.length === 1 ? 'its field' : 'their fields'}.
        </Text>
      )}
    </Alert>
  );
}
