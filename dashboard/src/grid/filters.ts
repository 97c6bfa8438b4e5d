// The Data page's filter chips: one column, one operator of
// filter[col][op] (docs/query-language.md), one value each; several chips
// narrow the rows together (AND). The operators offered are the ones the
// column's type takes, and a value is checked before it is sent.
import type { QueryPairs } from '../api/generated';
import { operatorsByType } from '../console/filterOperators.gen';
import { FILTER_OPERATOR_LABELS, type ColumnFilter, type FilterOperator } from '../console/listQuery';
import type { GridColumn } from './columns';

/** The operators the server's table offers on a column's type: json columns cannot be filtered. */
export function operatorsFor(type: string): FilterOperator[] {
  return [...(operatorsByType[type] ?? [])] as FilterOperator[];
}

export function filterableColumns(columns: GridColumn[]): GridColumn[] {
  return columns.filter((c) => operatorsFor(c.type).length > 0);
}

/** Why a chip's value would be refused, or undefined when it can be sent. */
export function filterValueProblem(type: string, op: FilterOperator, value: string): string | undefined {
  if (op === 'null') return value === 'true' || value === 'false' ? undefined : 'choose true or false';
  const values = op === 'in' ? value.split(',').map((v) => v.trim()) : [value.trim()];
  if (op === 'in' && (value.trim() === '' || values.some((v) => v === ''))) return 'give a comma-separated list';
  if (op === 'in' && values.length > 1000) return 'at most 1,000 values';
  if (op === 'like') return value === '' ? 'type some text' : undefined;
  for (const v of values) {
    switch (type) {
      case 'integer':
        if (!/^[+-]?\d+$/.test(v)) return 'needs a whole number';
        break;
      case 'number':
      case 'decimal':
        if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v)) return 'needs a number';
        break;
      case 'boolean':
        if (v !== 'true' && v !== 'false') return 'needs true or false';
        break;
      case 'date':
        if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'needs a date YYYY-MM-DD';
        break;
      case 'timestamp':
        if (Number.isNaN(new Date(v).getTime())) return 'needs a date or date and time';
        break;
      case 'uuid':
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) return 'needs a UUID';
        break;
    }
  }
  return undefined;
}

/** The query pairs of the chips, in the order they were added. */
export function filterPairs(filters: ColumnFilter[]): QueryPairs {
  return filters
    .filter((f) => f.column)
    .map((f) => [f.op === 'eq' ? `filter[${f.column}]` : `filter[${f.column}][${f.op}]`, f.op === 'in' ? f.value.split(',').map((v) => v.trim()).join(',') : f.value]);
}

/** A chip as words: `price ≥ 10`, `title contains "ann"`. */
export function filterLabel(filter: ColumnFilter): string {
  if (filter.op === 'null') return `${filter.column} ${filter.value === 'true' ? 'is empty' : 'is not empty'}`;
  const value = filter.op === 'like' ? `"${filter.value}"` : filter.value;
  const op = filter.op === 'in' ? 'is one of' : FILTER_OPERATOR_LABELS[filter.op];
  return `${filter.column} ${op} ${value}`;
}

/** Filters named in a page address (`?filter[id]=5&filter[price][gte]=10`), for links to rows. */
export function filtersFromSearch(params: URLSearchParams): ColumnFilter[] {
  const out: ColumnFilter[] = [];
  for (const [name, value] of params) {
    const match = /^filter\[([^\]]+)\](?:\[([a-z]+)\])?$/.exec(name);
    if (!match?.[1]) continue;
    const op = (match[2] ?? 'eq') as FilterOperator;
    if (!(op in FILTER_OPERATOR_LABELS)) continue;
    out.push({ column: match[1], op, value });
  }
  return out;
}
