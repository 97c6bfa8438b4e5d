// One request of the Test console, as the user has filled it in.
import type { QueryPairs } from '../api/generated';
import { emptyListHelpers, listQueryPairs, type ListHelpers } from './listQuery';
import { fillPath, type ConsoleOperation } from './openapi';

export interface ConsoleRequest {
  operationId: string;
  pathValues: Record<string, string>;
  helpers: ListHelpers;
  /** Query parameters of the operation that the list helpers do not cover. */
  extra: Record<string, string>;
  body: string;
}

export const LIST_HELPER_PARAMS = ['page', 'limit', 'offset', 'sort', 'order', 'filter', 'search', 'include', 'fields'];

export function newConsoleRequest(operationId: string, body = ''): ConsoleRequest {
  return { operationId, pathValues: {}, helpers: emptyListHelpers, extra: {}, body };
}

/** Query parameters of the operation the helpers do not cover, for plain inputs. */
export function extraQueryParameters(operation: ConsoleOperation): string[] {
  return operation.parameters
    .filter((p) => p.in === 'query')
    .map((p) => p.name)
    .filter((name) => !(operation.isList && (LIST_HELPER_PARAMS.includes(name) || name.startsWith('filter['))));
}

export function requestPath(operation: ConsoleOperation, request: ConsoleRequest): string {
  return fillPath(operation.path, request.pathValues);
}

export function requestQuery(operation: ConsoleOperation, request: ConsoleRequest): QueryPairs {
  const pairs: QueryPairs = operation.isList ? listQueryPairs(request.helpers) : [];
  for (const name of extraQueryParameters(operation)) {
    const value = request.extra[name];
    if (value !== undefined && value !== '') pairs.push([name, value]);
  }
  return pairs;
}
