import { Rows3, Rows4 } from 'lucide-react';
import { ToggleButton, ToggleButtonGroup } from 'react-aria-components';
import type { Density } from '../../lib/preferences';
import { useDensity } from './density';

/** Compact / comfortable rows for every table (the choice is remembered). */
export function DensityToggle() {
  const [density, setDensity] = useDensity();
  return (
    <ToggleButtonGroup
      aria-label="Row density"
      selectionMode="single"
      disallowEmptySelection
      selectedKeys={[density]}
      onSelectionChange={(keys) => {
        const k = [...keys][0];
        if (k === 'compact' || k === 'comfortable') setDensity(k as Density);
      }}
      className="ui-segmented"
    >
      <ToggleButton id="comfortable" className="ui-segmented__item" aria-label="Comfortable rows">
        <Rows3 size={16} aria-hidden="true" />
      </ToggleButton>
      <ToggleButton id="compact" className="ui-segmented__item" aria-label="Compact rows">
        <Rows4 size={16} aria-hidden="true" />
      </ToggleButton>
    </ToggleButtonGroup>
  );
}
