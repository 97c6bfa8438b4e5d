// A version's index builds (docs/schema-evolution.md, "Index builds") in
// the words the Generate page shows: generate answers when its migration
// commits, and the indexes it asked for are built afterwards.
import type { IndexBuild, IndexStatus } from '../api/types';

/** How often the page asks again while builds are under way. */
export const indexPollMs = 2_000;

/** Whether the status still changes by itself (so the page polls). */
export function isBuilding(status: IndexStatus | null | undefined): boolean {
  return status?.state === 'building';
}

/** The builds worth listing: not the ones a newer version took over. */
export function visibleBuilds(status: IndexStatus | null | undefined): IndexBuild[] {
  return (status?.items ?? []).filter((item) => item.state !== 'superseded');
}

/** One line that sums the builds up. */
export function indexSummary(status: IndexStatus | null | undefined): string {
  if (!status || status.total === 0) return 'No indexes to build';
  const indexes = status.total === 1 ? 'index' : 'indexes';
  switch (status.state) {
    case 'building':
      return `Building ${status.total} ${indexes} in the background: ${status.ready} of ${status.total} ready`;
    case 'failed':
      return `${status.failed} of ${status.total} ${indexes} could not be built`;
    default:
      return `${status.total} ${indexes} built`;
  }
}

/** One build's state in words, with its attempts when it was retried. */
export function describeBuild(build: IndexBuild): string {
  const retried = build.attempts > 1 ? ` (attempt ${build.attempts})` : '';
  switch (build.state) {
    case 'pending':
      return build.attempts > 0 ? `waiting to retry${retried}` : 'waiting';
    case 'building':
      return `building${retried}`;
    case 'ready':
      return 'ready';
    case 'failed':
      return `failed after ${build.attempts} ${build.attempts === 1 ? 'attempt' : 'attempts'}`;
    default:
      return 'replaced by a newer version';
  }
}
