import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { IconKey, IconLink, IconLock } from '@tabler/icons-react';
import { memo } from 'react';
import type { DraftTable } from '../../../builder/state';
import classes from './TableNode.module.css';

export interface TableNodeData extends Record<string, unknown> {
  table: DraftTable;
  problems: number;
}

const SYSTEM_TIMESTAMPS = ['created_at', 'updated_at'];

function TableNodeView({ data, selected }: NodeProps<Node<TableNodeData, 'table'>>) {
  const { table, problems } = data;
  const idType = table.id_type === 'uuid' ? 'uuid' : 'integer';
  // A table of a fronted database lists its own key and timestamps among its columns.
  const external = table.external;
  return (
    <div className={classes.node} data-selected={selected || undefined} data-invalid={problems > 0 || undefined} data-testid={`table-node-${table.name}`}>
      <Handle type="target" position={Position.Left} id="target-left" className={classes.targetHandle} />
      <Handle type="target" position={Position.Right} id="target-right" className={classes.targetHandle} />
      <div className={classes.header}>
        <span className={classes.title}>{table.name || 'unnamed'}</span>
        {table.auth && (
          <span className={classes.badge} title="Auth table: end users register and log in with it">
            <IconLock size={12} aria-hidden /> auth
          </span>
        )}
        {problems > 0 && <span className={classes.problems}>{problems} to fix</span>}
        <Handle type="source" position={Position.Right} id="link" className={classes.linkHandle} title="Drag onto another table to add a foreign key">
          <IconLink size={12} aria-hidden />
        </Handle>
      </div>
      <ul className={classes.columns}>
        {!external && (
          <li className={classes.system}>
            <span>
              <IconKey size={11} aria-hidden /> id
            </span>
            <span className={classes.type}>{idType}</span>
          </li>
        )}
        {table.columns.map((column) => (
          <li key={column.key} className={column.type === 'passthrough' ? classes.system : classes.column}>
            <span className={classes.name}>
              {external?.primary_key === column.name && <IconKey size={11} aria-hidden />}
              {column.type === 'passthrough' && <IconLock size={11} aria-hidden />}
              {column.name || '—'}
              {column.required ? <span className={classes.required} title="required">*</span> : null}
            </span>
            <span className={classes.type}>
              {column.references ? `→ ${column.references.table}` : column.type === 'passthrough' ? (column.pg_type ?? 'passthrough') : column.type}
            </span>
            {(column.type === 'integer' || column.type === 'uuid') && (
              <>
                <Handle type="source" position={Position.Left} id={`${column.key}-left`} className={classes.columnHandle} />
                <Handle type="source" position={Position.Right} id={`${column.key}-right`} className={classes.columnHandle} />
              </>
            )}
          </li>
        ))}
        {!external && SYSTEM_TIMESTAMPS.map((name) => (
          <li key={name} className={classes.system}>
            <span>{name}</span>
            <span className={classes.type}>timestamp</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export const TableNode = memo(TableNodeView);
