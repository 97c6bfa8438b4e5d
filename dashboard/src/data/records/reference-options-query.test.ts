import { describe, expect, it } from 'vitest';
import { referenceOptionsQuery } from './reference-options-query';

describe('referenceOptionsQuery', () => {
  const authors = { table: 'authors', textColumns: ['name', 'email'], idIsInteger: true };

  it('searches the text columns for a word', () => {
    expect(referenceOptionsQuery(authors, ' lovelace ')).toEqual([
      ['limit', '10'],
      ['count', 'none'],
      ['search', 'lovelace'],
    ]);
  });

  it('matches a number as the id or inside the text columns', () => {
    expect(referenceOptionsQuery(authors, '12')).toContainEqual(['filter', `id = 12 or "name" ~ '12' or "email" ~ '12'`]);
  });

  it('asks for the first records without a term, and by id when nothing can be searched', () => {
    expect(referenceOptionsQuery(authors, '')).toEqual([
      ['limit', '10'],
      ['count', 'none'],
    ]);
    const tags = { table: 'tags', textColumns: [], idIsInteger: false };
    expect(referenceOptionsQuery(tags, '00000000-0000-4000-8000-000000000001')).toContainEqual(['filter[id]', '00000000-0000-4000-8000-000000000001']);
  });
});
