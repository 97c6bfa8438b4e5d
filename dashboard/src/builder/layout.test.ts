import { describe, expect, it } from 'vitest';
import type { SchemaTable } from '../schema/document';
import { NODE_WIDTH, layoutPositions, layoutTables, nodeHeight } from './layout';

const ref = (name: string, table: string) => ({ name, type: 'integer', references: { table } });

// A shop as an introspected database arrives: no positions anywhere.
const shop: SchemaTable[] = [
  { name: 'order_items', columns: [ref('order_id', 'orders'), ref('product_id', 'products'), { name: 'qty', type: 'integer' }] },
  { name: 'orders', columns: [ref('customer_id', 'customers'), { name: 'total', type: 'decimal' }] },
  { name: 'products', columns: [{ name: 'title', type: 'text' }, { name: 'price', type: 'decimal' }, ref('category_id', 'categories')] },
  { name: 'customers', columns: [{ name: 'email', type: 'email' }] },
  { name: 'categories', columns: [{ name: 'name', type: 'text' }, ref('parent_id', 'categories')] },
  { name: 'audit_log', columns: [{ name: 'note', type: 'text' }] },
];

function expectNoOverlap(tables: SchemaTable[], positions: { x: number; y: number }[]) {
  positions.forEach((a, i) => {
    positions.forEach((b, j) => {
      if (j <= i) return;
      const ta = tables[i];
      const tb = tables[j];
      if (!ta || !tb) throw new Error('positions and tables differ in length');
      const apart =
        a.x + NODE_WIDTH <= b.x || b.x + NODE_WIDTH <= a.x || a.y + nodeHeight(ta) <= b.y || b.y + nodeHeight(tb) <= a.y;
      expect(apart, `${ta.name} at ${JSON.stringify(a)} overlaps ${tb.name} at ${JSON.stringify(b)}`).toBe(true);
    });
  });
}

describe('layoutPositions', () => {
  it('places every table of an uploaded schema without overlaps', () => {
    const positions = layoutPositions(shop);
    expect(positions).toHaveLength(shop.length);
    expectNoOverlap(shop, positions);
  });

  it('puts a referenced table in an earlier rank than the tables that refer to it', () => {
    const positions = layoutPositions(shop);
    const x = (name: string) => positions[shop.findIndex((t) => t.name === name)]?.x ?? Number.NaN;
    expect(x('customers')).toBeLessThan(x('orders'));
    expect(x('orders')).toBeLessThan(x('order_items'));
    expect(x('categories')).toBeLessThan(x('products'));
    expect(x('products')).toBeLessThan(x('order_items'));
  });

  it('keeps the positions the user gave and moves no other table when one is dragged', () => {
    const before = layoutPositions(shop);
    const dragged = shop.map((t) => (t.name === 'orders' ? { ...t, position: { x: 2000, y: 2000 } } : t));
    const after = layoutPositions(dragged);
    expect(after[1]).toEqual({ x: 2000, y: 2000 });
    after.forEach((p, i) => {
      if (i !== 1) expect(p).toEqual(before[i]);
    });
  });

  it('moves a laid-out table out of the way of one the user placed', () => {
    const first = layoutPositions(shop)[3];
    if (!first) throw new Error('no position for customers');
    const tables = shop.map((t) => (t.name === 'audit_log' ? { ...t, position: { ...first } } : t));
    expectNoOverlap(tables, layoutPositions(tables));
  });

  it('lays out two tables of the same name (a draft mid-edit) apart', () => {
    const twins: SchemaTable[] = [
      { name: 'a', columns: [] },
      { name: 'a', columns: [] },
    ];
    expectNoOverlap(twins, layoutPositions(twins));
  });

  it('pairs each table with its position', () => {
    const laid = layoutTables([{ name: 't', columns: [], position: { x: 5, y: 6 } }]);
    expect(laid[0]?.position).toEqual({ x: 5, y: 6 });
  });
});
