import { Anchor } from '@mantine/core';
import { useState } from 'react';

// Longer than this, a description shows its first sentence and a "More"
// link: three-line descriptions pushed Send below the fold (issue 20).
const SHORT = 70;

/** The first sentence of text, or its first SHORT characters. */
export function shortDescription(text: string): string {
  const sentence = /^.*?[.:;](\s|$)/.exec(text)?.[0].trim() ?? text;
  const short = sentence.length <= SHORT ? sentence : `${text.slice(0, SHORT).replace(/\s+\S*$/, '')}`;
  return short.replace(/[.:;]$/, '');
}

/** A parameter's description, collapsed to one line when long. */
export function ParameterDescription({ text, id }: { text: string; id?: string }) {
  const [open, setOpen] = useState(false);
  if (text.length <= SHORT) return <span id={id}>{text}</span>;
  return (
    <span id={id}>
      <span data-testid="parameter-description">{open ? text : `${shortDescription(text)}…`}</span>{' '}
      <Anchor component="button" type="button" size="xs" onClick={() => setOpen(!open)} aria-expanded={open}>
        {open ? 'Less' : 'More'}
      </Anchor>
    </span>
  );
}
