import { Stack } from '@mantine/core';
import { useOutletContext } from 'react-router';
import type { Project } from '../../../api/types';
import { PageHeader } from '../../../components/PageHeader';
import { ApiKeysSection } from './ApiKeysSection';
import { DeleteProjectSection } from './DeleteProjectSection';
import { ProjectSection } from './ProjectSection';

export function SettingsPage() {
  const project = useOutletContext<Project>();
  return (
    <Stack gap="md" maw={1000}>
      <PageHeader title="Settings" />
      <ApiKeysSection projectId={project.id} />
      <ProjectSection key={project.name} project={project} />
      <DeleteProjectSection project={project} />
    </Stack>
  );
}
