import type { ReactNode } from 'react';
import { Tab, TabList, TabPanel, Tabs as AriaTabs } from 'react-aria-components';
import { cx } from './cx';

export interface TabsProps {
  label: string;
  tabs: readonly { id: string; label: ReactNode; content: ReactNode }[];
  selected?: string;
  onSelectionChange?(id: string): void;
  className?: string;
}

/** Tabs with arrow-key movement between tabs (React Aria). */
export function Tabs({ label, tabs, selected, onSelectionChange, className }: TabsProps) {
  return (
    <AriaTabs
      className={cx('ui-tabs', className)}
      selectedKey={selected}
      onSelectionChange={(k) => onSelectionChange?.(String(k))}
    >
      <TabList aria-label={label} className="ui-tabs__list">
        {tabs.map((t) => (
          <Tab key={t.id} id={t.id} className="ui-tabs__tab">
            {t.label}
          </Tab>
        ))}
      </TabList>
      {tabs.map((t) => (
        <TabPanel key={t.id} id={t.id} className="ui-tabs__panel">
          {t.content}
        </TabPanel>
      ))}
    </AriaTabs>
  );
}
