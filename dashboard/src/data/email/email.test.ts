import { describe, expect, it } from 'vitest';
import { splitLinks } from './email';

describe('splitLinks', () => {
  it('finds the links of a message and keeps the text around them', () => {
    const parts = splitLinks('Open:\nhttps://x.example/reset?token=a&b=1\n\nThanks');
    expect(parts).toEqual([
      { text: 'Open:\n' },
      { text: 'https://x.example/reset?token=a&b=1', href: 'https://x.example/reset?token=a&b=1' },
      { text: '\n\nThanks' },
    ]);
    expect(splitLinks('no link')).toEqual([{ text: 'no link' }]);
    expect(splitLinks('javascript:alert(1)')).toEqual([{ text: 'javascript:alert(1)' }]);
  });
});
