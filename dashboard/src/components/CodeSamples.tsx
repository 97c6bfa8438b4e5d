import { Button, Code, CopyButton, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useState } from 'react';
import { KEY_VARIABLE, snippet, SNIPPET_LABELS, SNIPPET_LANGUAGES, type SnippetLanguage, type SnippetRequest } from '../console/snippets';

const LANGUAGE_KEY = 'tablesmith.snippet-language';

function storedLanguage(): SnippetLanguage {
  const stored = localStorage.getItem(LANGUAGE_KEY);
  return SNIPPET_LANGUAGES.find((l) => l === stored) ?? 'curl';
}

/**
 * One request as code to copy, in the language the user last chose
 * (remembered in this browser). With the dashboard session chosen the
 * code reads the key from TABLESMITH_KEY and says so: the session is the
 * owner's login and never goes into code.
 */
export function CodeSamples({ request }: { request: SnippetRequest }) {
  const [language, setLanguage] = useState<SnippetLanguage>(storedLanguage);
  const text = snippet(language, request);
  const choose = (value: string) => {
    const next = SNIPPET_LANGUAGES.find((l) => l === value) ?? 'curl';
    localStorage.setItem(LANGUAGE_KEY, next);
    setLanguage(next);
  };
  return (
    <Stack gap="xs" data-testid="code-samples">
      <Group justify="space-between" gap="xs">
        <SegmentedControl
          size="xs"
          aria-label="Language"
          value={language}
          onChange={choose}
          data={SNIPPET_LANGUAGES.map((l) => ({ value: l, label: SNIPPET_LABELS[l] }))}
        />
        <CopyButton value={text} timeout={1500}>
          {({ copied, copy }) => (
            <Button size="compact-sm" variant="default" leftSection={copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />} onClick={copy}>
              {copied ? 'Copied' : `Copy ${SNIPPET_LABELS[language]}`}
            </Button>
          )}
        </CopyButton>
      </Group>
      {/* Focusable, so the keyboard can scroll a long sample. */}
      <Code block data-testid="code-sample" data-language={language} tabIndex={0} aria-label={`${SNIPPET_LABELS[language]} code`} style={{ maxHeight: 320, overflow: 'auto' }}>
        {text}
      </Code>
      {request.credential.kind === 'variable' ? (
        <Text size="xs" c="dimmed" data-testid="key-variable-note">
          Your dashboard session is not put into code. Set <span className="mono">{KEY_VARIABLE}</span> to one of the project&apos;s API keys first (
          <span className="mono">export {KEY_VARIABLE}=…</span>), or choose a key above to have it written in.
        </Text>
      ) : null}
    </Stack>
  );
}
