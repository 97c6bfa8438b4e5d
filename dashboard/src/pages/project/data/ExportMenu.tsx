import { Button, Menu } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconChevronDown, IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { describeError } from '../../../api/client';
import type { QueryPairs } from '../../../api/generated';
import { exportRecords, type ExportFormat } from '../../../data/records/records-export';
import { tones } from '../../../tones';

interface ExportMenuProps {
  projectId: string;
  tableName: string;
  /** The page's filters, search and sort, without the page. */
  query: QueryPairs;
  credential: string;
}

/** Downloads every row the current filters match, in the current order, from the streaming export. */
export function ExportMenu({ projectId, tableName, query, credential }: ExportMenuProps) {
  const [busy, setBusy] = useState(false);
  const download = async (format: ExportFormat) => {
    setBusy(true);
    try {
      const file = await exportRecords(projectId, tableName, query, format, credential);
      const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
      const link = document.createElement('a');
      link.href = url;
      link.download = file.filename;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      const { title, lines } = describeError(error);
      notifications.show({ color: tones.danger, title: 'The export failed', message: [title, ...lines].join(' · ') });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Menu position="bottom-end">
      <Menu.Target>
        <Button variant="default" loading={busy} leftSection={<IconDownload size={16} aria-hidden />} rightSection={<IconChevronDown size={14} aria-hidden />}>
          Export
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Rows matching the filters</Menu.Label>
        <Menu.Item onClick={() => void download('csv')}>CSV (.csv)</Menu.Item>
        <Menu.Item onClick={() => void download('json')}>JSON (.json)</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
