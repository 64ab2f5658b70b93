import { Rows3, Rows4 } from 'lucide-react';
import type { Density } from '../../lib/preferences';
import { useDensity } from './density';
import { Segmented } from './Segmented';
import type { SegmentedOption } from './Segmented';

const DENSITIES: readonly SegmentedOption<Density>[] = [
  { value: 'comfortable', content: <Rows3 size={16} aria-hidden="true" />, name: 'Comfortable rows' },
  { value: 'compact', content: <Rows4 size={16} aria-hidden="true" />, name: 'Compact rows' },
];

/** Compact / comfortable rows for every table (the choice is remembered). */
export function DensityToggle() {
  const [density, setDensity] = useDensity();
  return (
    <Segmented label="Row density" hideLabel value={density} onChange={setDensity} options={DENSITIES} />
  );
}
