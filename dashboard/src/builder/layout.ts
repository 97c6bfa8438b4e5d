// Where the canvas draws each table. A table the user placed keeps its saved
// position; the others (an uploaded or introspected schema has none) take
// the place dagre gives them in a layout of the whole schema as a graph:
// tables are nodes, references edges from the referenced table to the one
// that refers to it, so referenced tables come first, left to right.
// Positions do not feed the layout, so moving one table leaves the others
// where they were.
import { Graph, layout } from '@dagrejs/dagre';
import type { Position, SchemaTable } from '../schema/document';

/** The node's drawn size: TableNode is at most 300 px wide, one row per column. */
export const NODE_WIDTH = 300;
const HEADER_HEIGHT = 40;
const ROW_HEIGHT = 22;
const SYSTEM_ROWS = 3;
const MARGIN = 40;
const GAP = 24;

type LayoutTable = Pick<SchemaTable, 'name' | 'position' | 'columns'>;

interface Box extends Position {
  height: number;
}

export function nodeHeight(table: Pick<SchemaTable, 'columns'>): number {
  return HEADER_HEIGHT + (table.columns.length + SYSTEM_ROWS) * ROW_HEIGHT + 12;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + NODE_WIDTH + GAP && b.x < a.x + NODE_WIDTH + GAP && a.y < b.y + b.height + GAP && b.y < a.y + a.height + GAP;
}

/** Each table with where to draw it, in the order given. */
export function layoutTables<T extends LayoutTable>(tables: T[]): { table: T; position: Position }[] {
  const positions = layoutPositions(tables);
  return tables.map((table, i) => ({ table, position: positions[i] ?? table.position ?? { x: MARGIN, y: MARGIN } }));
}

/** A position for every table, in the order given. */
export function layoutPositions(tables: LayoutTable[]): Position[] {
  if (tables.every((t) => t.position)) return tables.map((t) => t.position ?? { x: MARGIN, y: MARGIN });

  // Nodes are keyed by index: a draft may briefly hold two tables of one name.
  const g = new Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 90, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  const indexOf = new Map<string, number>();
  tables.forEach((t, i) => {
    g.setNode(String(i), { width: NODE_WIDTH, height: nodeHeight(t) });
    if (!indexOf.has(t.name)) indexOf.set(t.name, i);
  });
  tables.forEach((t, i) => {
    for (const c of t.columns) {
      const target = c.references ? indexOf.get(c.references.table) : undefined;
      if (target !== undefined && target !== i) g.setEdge(String(target), String(i));
    }
  });
  layout(g);

  const boxes: Box[] = tables.flatMap((t) => (t.position ? [{ ...t.position, height: nodeHeight(t) }] : []));
  return tables.map((t, i) => {
    if (t.position) return t.position;
    const n = g.node(String(i));
    const height = nodeHeight(t);
    // dagre gives centres; the canvas wants top-left corners.
    const box: Box = { x: Math.round(n.x - NODE_WIDTH / 2), y: Math.round(n.y - height / 2), height };
    // Below any table the user moved into the way.
    for (let hit = boxes.find((b) => overlaps(b, box)); hit; hit = boxes.find((b) => overlaps(b, box))) {
      box.y = hit.y + hit.height + GAP;
    }
    boxes.push(box);
    return { x: box.x, y: box.y };
  });
}
