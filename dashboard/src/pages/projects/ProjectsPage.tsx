import { Anchor, AppShell, Badge, Button, Card, Container, Group, Modal, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AccountMenu } from '../../components/AccountMenu';
import { BrandMark } from '../../components/BrandMark';
import { EmptyState } from '../../components/EmptyState';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LoadingState } from '../../components/LoadingState';
import { PageHeader } from '../../components/PageHeader';
import { VerifyEmailBanner } from '../../components/VerifyEmailBanner';
import { useAccountQuery } from '../../data/account/account-query';
import { useProjectsQuery } from '../../data/projects/projects-query';
import { formatDate } from '../../lib/format';
import { CreateProjectForm } from './CreateProjectForm';
import { PlanSummary, atProjectLimit } from './PlanSummary';
import { formatBytes } from '../../builder/fileSettings';

export function ProjectsPage() {
  const projects = useProjectsQuery();
  const account = useAccountQuery();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const blocked = atProjectLimit(account.data);

  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between">
          <Anchor component={Link} to="/projects" underline="never" c="inherit" aria-label="Tablesmith home">
            <BrandMark />
          </Anchor>
          <AccountMenu />
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Container size="lg">
          <PageHeader
            title="Projects"
            description="Each project is a schema and the REST API generated from it."
            actions={
              <Group gap="xs" wrap="wrap" justify="flex-end">
                {blocked && (
                  // A disabled button says nothing by itself: the reason sits beside it.
                  <Text size="sm" c="dimmed" id="new-project-blocked" maw={320} ta="right">
                    Your {account.data?.plan} plan allows {account.data?.limits?.projects === 1 ? '1 project' : `${account.data?.limits?.projects} projects`}.
                    Delete one or move to another plan to create more.
                  </Text>
                )}
                <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} disabled={blocked} aria-describedby={blocked ? 'new-project-blocked' : undefined}>
                  New project
                </Button>
              </Group>
            }
          />
          <Stack gap="md">
            <VerifyEmailBanner />
            {account.data && <PlanSummary account={account.data} />}
            {projects.isPending && <LoadingState label="Loading projects…" />}
            {projects.error && <ErrorAlert error={projects.error} title="Could not load your projects" />}
            {projects.data?.length === 0 && (
              <EmptyState
                title="No projects yet"
                action={
                  <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
                    Create your first project
                  </Button>
                }
              >
                A project holds your tables. Design them in the schema builder, generate the API with one click and try it
                right here.
              </EmptyState>
            )}
            {projects.data && projects.data.length > 0 && (
              <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                {projects.data.map((project) => (
                  <Card key={project.id} withBorder component="li" padding="lg">
                    <Stack gap={6}>
                      <Anchor component={Link} to={`/projects/${project.id}/schema`} fw={600} size="lg">
                        {project.name}
                      </Anchor>
                      <Group gap="xs">
                        <Badge variant="outline" color="gray.8">
                          {project.engine}
                        </Badge>
                        {project.role !== 'owner' && (
                          // A project shared with you: your role in it (docs/teams.md).
                          <Badge variant="light" color="indigo.8">
                            {project.role}
                          </Badge>
                        )}
                        <Text size="xs" c="dimmed">
                          created {formatDate(project.created_at)}
                        </Text>
                      </Group>
                      <Text size="xs" c="dimmed" className="mono">
                        {project.api_base_url ?? `/v1/${project.id}`}
                      </Text>
                      {project.usage && (
                        <Text size="xs" c="dimmed">
                          {project.usage.limit !== null && project.usage.limit > 0
                            ? `${project.usage.used} of ${project.usage.limit} requests this hour`
                            : `${project.usage.used} requests this hour`}
                        </Text>
                      )}
                      {project.files && project.files.used_bytes > 0 && (
                        <Text size="xs" c="dimmed" data-testid="project-files">
                          {project.files.limit_bytes > 0
                            ? `${formatBytes(project.files.used_bytes)} of ${formatBytes(project.files.limit_bytes)} of files`
                            : `${formatBytes(project.files.used_bytes)} of files`}
                        </Text>
                      )}
                    </Stack>
                  </Card>
                ))}
              </SimpleGrid>
            )}
          </Stack>
        </Container>
        <Modal opened={creating} onClose={() => setCreating(false)} title="New project" size="lg">
          <CreateProjectForm
            blockedByPlan={blocked}
            onCancel={() => setCreating(false)}
            onCreated={(project) => {
              setCreating(false);
              navigate(`/projects/${project.id}/schema`);
            }}
          />
        </Modal>
      </AppShell.Main>
    </AppShell>
  );
}
