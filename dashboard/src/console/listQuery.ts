// The list helpers of the Test console and Data page: page, limit, sort,
// filters, search, include and fields turned into the query of CONTRACT 5.1.
// The operators come from the server's operator table (translate/operators.go),
// generated into filterOperators.gen.ts by `go generate ./translate`.
import type { QueryPairs } from '../api/generated';
import { filterOperators } from './filterOperators.gen';

type FieldOperator = Exclude<(typeof filterOperators)[number], { field: '' }>;

/** The operators of filter[column][op], in the server's order. */
export const FILTER_OPERATORS: readonly FieldOperator['field'][] = filterOperators
  .filter((o): o is FieldOperator => o.field !== '')
  .map((o) => o.field);
export type FilterOperator = FieldOperator['field'];

export const FILTER_OPERATOR_LABELS = Object.fromEntries(
  filterOperators.filter((o) => o.field !== '').map((o) => [o.field, o.label]),
) as Record<FilterOperator, string>;

export interface ColumnFilter {
  column: string;
  op: FilterOperator;
  value: string;
}

export interface SortKey {
  column: string;
  descending: boolean;
}

export interface ListHelpers {
  page?: number;
  limit?: number;
  sort: SortKey[];
  filters: ColumnFilter[];
  /** A filter expression (`age >= 18 and name ~ 'ann'`), sent as `filter=`. */
  expression?: string;
  search?: string;
  include: string[];
  fields: string[];
}

export const emptyListHelpers: ListHelpers = { sort: [], filters: [], include: [], fields: [] };

export function listQueryPairs(helpers: ListHelpers): QueryPairs {
  const pairs: QueryPairs = [];
  if (helpers.page !== undefined) pairs.push(['page', String(helpers.page)]);
  if (helpers.limit !== undefined) pairs.push(['limit', String(helpers.limit)]);
  const sort = helpers.sort.filter((s) => s.column);
  if (sort.length) pairs.push(['sort', sort.map((s) => `${s.descending ? '-' : ''}${s.column}`).join(',')]);
  for (const filter of helpers.filters) {
    if (!filter.column) continue;
    const name = filter.op === 'eq' ? `filter[${filter.column}]` : `filter[${filter.column}][${filter.op}]`;
    pairs.push([name, filter.value]);
  }
  if (helpers.expression?.trim()) pairs.push(['filter', helpers.expression.trim()]);
  if (helpers.search?.trim()) pairs.push(['search', helpers.search.trim()]);
  if (helpers.include.length) pairs.push(['include', helpers.include.join(',')]);
  if (helpers.fields.length) pairs.push(['fields', helpers.fields.join(',')]);
  return pairs;
}
