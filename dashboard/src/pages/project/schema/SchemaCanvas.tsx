import {
  Background,
  ControlButton,
  Controls,
  MiniMap,
  ReactFlow,
  applyNodeChanges,
  useReactFlow,
  type Connection,
  type Edge,
  type FitViewOptions,
  type Node,
  type NodeChange,
} from '@xyflow/react';
import { useMediaQuery } from '@mantine/hooks';
import { IconMap } from '@tabler/icons-react';
import { useCallback, useEffect, useMemo, useState, type Dispatch } from 'react';
import type { BuilderAction, DraftTable } from '../../../builder/state';
import { layoutTables } from '../../../builder/layout';
import { TableNode, type TableNodeData } from './TableNode';

const nodeTypes = { table: TableNode };

/** Diagrams with more tables than this open with the overview (minimap) shown. */
const MINIMAP_FROM_TABLES = 6;

/**
 * Fitting leaves room for the controls (bottom left) and, when shown, the
 * overview (200px wide, bottom right), so neither covers a table.
 */
function fitViewOptions(withMap: boolean): FitViewOptions {
  // Never below 60 %: smaller, column names are unreadable (issue 37); a
  // diagram too big for the pane is panned, or seen whole in the overview.
  return { padding: { top: '24px', bottom: '24px', left: '56px', right: withMap ? '236px' : '24px' }, maxZoom: 1, minZoom: READABLE_ZOOM };
}

/** The smallest zoom at which a table's column names can be read. */
export const READABLE_ZOOM = 0.6;

/**
 * The cardinality of a foreign key, as the edge shows it: many rows of the
 * referencing table to one of the referenced, or one to one when the key
 * column is unique.
 */
export function cardinality(column: { unique?: boolean }): '1:1' | 'n:1' {
  return column.unique ? '1:1' : 'n:1';
}

/**
 * Crow's-foot ends for the edges: "many" fans out at the referencing
 * table, a bar marks "one". A marker's x axis points into the table it
 * touches (the start marker is turned round).
 */
function CardinalityMarkers() {
  const stroke = { stroke: '#495057', strokeWidth: 1.5, fill: 'none' };
  return (
    <svg width="0" height="0" style={{ position: 'absolute' }} aria-hidden="true">
      <defs>
        <marker id="er-many" viewBox="0 0 20 20" markerWidth="18" markerHeight="18" refX="18" refY="10" orient="auto-start-reverse" markerUnits="userSpaceOnUse">
          <path d="M18,2 L2,10 M18,18 L2,10 M18,10 L2,10" {...stroke} />
        </marker>
        <marker id="er-one" viewBox="0 0 20 20" markerWidth="18" markerHeight="18" refX="18" refY="10" orient="auto-start-reverse" markerUnits="userSpaceOnUse">
          <path d="M18,10 L2,10 M12,3 L12,17" {...stroke} />
        </marker>
      </defs>
    </svg>
  );
}

interface SchemaCanvasProps {
  tables: DraftTable[];
  selectedTableKey: string | null;
  problemCounts: Record<string, number>;
  dispatch: Dispatch<BuilderAction>;
}

type TableFlowNode = Node<TableNodeData, 'table'>;

/**
 * The entity-relationship diagram: one node per table, one edge per foreign
 * key. Dragging moves a table (saved into its `position`); drawing from a
 * table's link handle, or from a key column, onto another table creates a
 * relationship.
 */
export function SchemaCanvas({ tables, selectedTableKey, problemCounts, dispatch }: SchemaCanvasProps) {
  const laidOut = useMemo(() => layoutTables(tables), [tables]);
  const [nodes, setNodes] = useState<TableFlowNode[]>([]);
  const { fitView } = useReactFlow();
  const roomy = useMediaQuery('(min-width: 62em)');
  // The overview helps on large diagrams; on small ones it only covers
  // tables (issue 20 item 5), so it starts hidden there, a button away.
  const [mapChoice, setMapChoice] = useState<boolean | null>(null);
  const showMap = roomy && (mapChoice ?? tables.length > MINIMAP_FROM_TABLES);

  const fitOptions = useMemo(() => fitViewOptions(showMap), [showMap]);

  // Bring every table into view when one appears or goes (after React Flow
  // has measured the nodes), and clear of the overview when it opens.
  useEffect(() => {
    const timer = window.setTimeout(() => void fitView({ ...fitOptions, duration: 150 }), 60);
    return () => window.clearTimeout(timer);
  }, [tables.length, fitView, fitOptions]);

  useEffect(() => {
    setNodes((previous) => {
      const byId = new Map(previous.map((n) => [n.id, n]));
      return laidOut.map(({ table, position }) => {
        const prior = byId.get(table.key);
        return {
          ...prior,
          id: table.key,
          type: 'table' as const,
          position: prior?.dragging ? prior.position : position,
          selected: table.key === selectedTableKey,
          data: { table, problems: problemCounts[table.key] ?? 0 },
        };
      });
    });
  }, [laidOut, selectedTableKey, problemCounts]);

  // Each key leaves its table on the side facing the table it references,
  // so edges stay short wherever the tables are dragged.
  const edges = useMemo<Edge[]>(() => {
    const keyOf = new Map(tables.map((t) => [t.name, t.key]));
    const xOf = new Map(nodes.map((n) => [n.id, n.position.x]));
    return tables.flatMap((table) =>
      table.columns
        .filter((c) => c.references && keyOf.has(c.references.table))
        .map((c): Edge => {
          const target = keyOf.get(c.references!.table)!;
          const targetIsLeft = (xOf.get(target) ?? 0) < (xOf.get(table.key) ?? 0);
          const onDelete = c.references!.on_delete;
          const kind = cardinality(c);
          return {
            id: `${table.key}:${c.key}`,
            source: table.key,
            sourceHandle: `${c.key}-${targetIsLeft ? 'left' : 'right'}`,
            target,
            targetHandle: targetIsLeft ? 'target-right' : 'target-left',
            label: onDelete && onDelete !== 'restrict' ? `${kind} · on delete ${onDelete}` : kind,
            ariaLabel: `${table.name}.${c.name} references ${c.references!.table}: ${kind === '1:1' ? 'one to one' : 'many to one'}`,
            markerStart: kind === '1:1' ? 'er-one' : 'er-many',
            markerEnd: 'er-one',
            style: { strokeWidth: 1.5 },
          };
        }),
    );
  }, [tables, nodes]);

  const onNodesChange = useCallback((changes: NodeChange<TableFlowNode>[]) => {
    setNodes((current) => applyNodeChanges(changes, current));
  }, []);

  const onConnect = useCallback(
    (connection: Connection) => {
      const from = tables.find((t) => t.key === connection.source);
      const to = tables.find((t) => t.key === connection.target);
      if (!from || !to) return;
      const columnKey =
        connection.sourceHandle && connection.sourceHandle !== 'link' ? connection.sourceHandle.replace(/-(left|right)$/, '') : undefined;
      dispatch({ type: 'addRelationship', tableKey: from.key, targetTable: to.name, columnKey });
    },
    [tables, dispatch],
  );

  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      onNodesChange={onNodesChange}
      onNodeDragStop={(_event, node) => dispatch({ type: 'moveTable', tableKey: node.id, position: node.position })}
      onNodeClick={(_event, node) => dispatch({ type: 'selectTable', tableKey: node.id })}
      onPaneClick={() => undefined}
      onConnect={onConnect}
      deleteKeyCode={null}
      fitView
      fitViewOptions={fitOptions}
      minZoom={0.25}
      proOptions={{ hideAttribution: true }}
      aria-label="Entity-relationship diagram of the schema"
    >
      <CardinalityMarkers />
      <Background gap={20} />
      <Controls showInteractive={false} fitViewOptions={fitOptions}>
        {roomy && (
          <ControlButton onClick={() => setMapChoice(!showMap)} aria-label={showMap ? 'Hide the overview' : 'Show the overview'} title={showMap ? 'Hide the overview' : 'Show the overview'}>
            <IconMap size={14} />
          </ControlButton>
        )}
      </Controls>
      {showMap && <MiniMap pannable zoomable ariaLabel="Overview of the diagram" />}
    </ReactFlow>
  );
}
