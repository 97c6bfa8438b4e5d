// What generate would refuse because of the rows a table already holds,
// worked out in the builder before the draft is even saved: a new required
// column with no default or backfill leaves those rows without a value,
// and a new unique column with one gives them all the same value
// (docs/schema-evolution.md). The server's plan check says the same once
// the draft is saved.
import { isUploadColumn, type SchemaColumn, type SchemaDocument } from '../schema/document';
import { findPublishedTable, publishedColumnOrigin, publishedTableOrigin } from './state';

/** How many rows a published table holds; `estimated` above the API's exact-count threshold. */
export interface RowCount {
  total: number;
  estimated: boolean;
}

export type ExistingRowsRule = 'needs-value' | 'unique-fill';

export interface ColumnBlockedByRows {
  tableIndex: number;
  columnIndex: number;
  table: string;
  column: string;
  /** The published table whose rows are in the way. */
  publishedTable: string;
  rows: RowCount;
  rule: ExistingRowsRule;
  /** A file column: no default or backfill can give the rows a file. */
  upload?: boolean;
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Whether the existing rows would get a value when the column is added. */
export function fillsExistingRows(column: SchemaColumn): boolean {
  return isSet(column.default) || isSet(column.backfill);
}

/** The rule an added column could break, before counting rows. */
function ruleAtRisk(column: SchemaColumn): ExistingRowsRule | undefined {
  if (column.required && !fillsExistingRows(column)) return 'needs-value';
  if (column.unique && fillsExistingRows(column)) return 'unique-fill';
  return undefined;
}

interface AddedColumn {
  tableIndex: number;
  columnIndex: number;
  table: string;
  column: string;
  publishedTable: string;
  rule: ExistingRowsRule;
  upload?: boolean;
}

/** The columns the draft adds to published tables that existing rows could block. */
function addedColumnsAtRisk(document: SchemaDocument, published: SchemaDocument | null): AddedColumn[] {
  const out: AddedColumn[] = [];
  document.tables.forEach((table, tableIndex) => {
    const origin = publishedTableOrigin(published, table);
    const publishedTable = findPublishedTable(published, origin);
    if (!origin || !publishedTable) return;
    table.columns.forEach((column, columnIndex) => {
      if (publishedColumnOrigin(publishedTable, column)) return;
      const rule = ruleAtRisk(column);
      if (rule) out.push({ tableIndex, columnIndex, table: table.name, column: column.name, publishedTable: origin, rule, ...(isUploadColumn(column) ? { upload: true } : {}) });
    });
  });
  return out;
}

/** The published tables whose row counts decide whether the draft is blocked. */
export function tablesToCount(document: SchemaDocument, published: SchemaDocument | null): string[] {
  return [...new Set(addedColumnsAtRisk(document, published).map((c) => c.publishedTable))];
}

/** The draft's added columns that the counted rows would make generate refuse. */
export function columnsBlockedByRows(document: SchemaDocument, published: SchemaDocument | null, counts: Record<string, RowCount | undefined>): ColumnBlockedByRows[] {
  return addedColumnsAtRisk(document, published).flatMap((added) => {
    const rows = counts[added.publishedTable];
    if (!rows) return [];
    const blocked = added.rule === 'needs-value' ? rows.total > 0 : rows.total > 1;
    return blocked ? [{ ...added, rows }] : [];
  });
}

/** The rows in words: "3 rows", "about 12,000 rows". */
export function rowsInWords(rows: RowCount): string {
  const n = rows.total.toLocaleString('en-US');
  return `${rows.estimated ? 'about ' : ''}${n} ${rows.total === 1 ? 'row' : 'rows'}`;
}

/** Why generate would refuse the column, in one sentence. */
export function describeBlockedColumn(blocked: ColumnBlockedByRows): string {
  const rows = rowsInWords(blocked.rows);
  if (blocked.rule === 'needs-value' && blocked.upload) {
    return `${blocked.table} has ${rows}: they would have no file for the new required column ${blocked.column}, and a file column takes no default. Make it optional, or add it while the table is empty.`;
  }
  return blocked.rule === 'needs-value'
    ? `${blocked.table} has ${rows}: they would have no value for the new required column ${blocked.column}. Give it a default, or a value to fill the existing rows once.`
    : `${blocked.table} has ${rows}: they would all get the same value in the new unique column ${blocked.column}. Make it not unique, or add it while the table is empty.`;
}
