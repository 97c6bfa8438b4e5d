import { describe, expect, it } from 'vitest';
import { filterLabel, filterPairs, filterValueProblem, filtersFromSearch, operatorsFor } from './filters';

describe('filters', () => {
  it('offers the operators a column type takes', () => {
    expect(operatorsFor('text')).toEqual(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'in', 'null']);
    expect(operatorsFor('boolean')).toEqual(['eq', 'ne', 'in', 'null']);
    expect(operatorsFor('enum')).toEqual(['eq', 'ne', 'like', 'in', 'null']);
    expect(operatorsFor('json')).toEqual([]);
  });

  it('builds one filter[col][op] pair per chip, equality without an operator', () => {
    expect(
      filterPairs([
        { column: 'price', op: 'gte', value: '10.50' },
        { column: 'genre', op: 'eq', value: 'poetry' },
        { column: 'id', op: 'in', value: '1, 2 ,3' },
        { column: 'title', op: 'like', value: 'ann' },
      ]),
    ).toEqual([
      ['filter[price][gte]', '10.50'],
      ['filter[genre]', 'poetry'],
      ['filter[id][in]', '1,2,3'],
      ['filter[title][like]', 'ann'],
    ]);
  });

  it('tells a value the server would refuse', () => {
    expect(filterValueProblem('integer', 'gt', 'ten')).toBe('needs a whole number');
    expect(filterValueProblem('integer', 'in', '1,,2')).toBe('give a comma-separated list');
    expect(filterValueProblem('integer', 'in', '1,2')).toBeUndefined();
    expect(filterValueProblem('decimal', 'lt', '9.99')).toBeUndefined();
    expect(filterValueProblem('text', 'null', 'yes')).toBe('choose true or false');
    expect(filterValueProblem('date', 'gte', '2026-1-2')).toBe('needs a date YYYY-MM-DD');
  });

  it('reads filters from a link and labels chips', () => {
    const filters = filtersFromSearch(new URLSearchParams('filter[id]=5&filter[price][gte]=10&filter[x][bogus]=1&page=2'));
    expect(filters).toEqual([
      { column: 'id', op: 'eq', value: '5' },
      { column: 'price', op: 'gte', value: '10' },
    ]);
    expect(filterLabel({ column: 'title', op: 'like', value: 'ann' })).toBe('title contains "ann"');
    expect(filterLabel({ column: 'notes', op: 'null', value: 'true' })).toBe('notes is empty');
  });
});
