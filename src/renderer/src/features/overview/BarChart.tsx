import { useLayoutEffect, useRef, useState } from 'react';
import type { RefObject } from 'react';
/**
 * The overview's bar charts, drawn as plain SVG. A chart library (recharts, ≈ 105 KiB gzipped)
 * cost the home screen its 120 KiB budget for three small bar charts; these need bars, a value
 * axis, category labels and a legend, nothing more. Series, legend and bars are drawn from the
 * same series list, so a legend swatch always has its bars' colour (the class `chart__tone--…`).
 * The SVG is a picture for the mouse (each bar opens its list and says its value on hover); the
 * same targets are keyboard links beside every chart.
 */

export type ChartTone = 'accent' | 'ok' | 'warn' | 'muted';

export interface ChartSeries {
  key: string;
  name: string;
  tone: ChartTone;
}

export interface BarChartProps<Row> {
  data: readonly Row[];
  series: readonly ChartSeries[];
  /** The category's words (axis label). */
  category: (row: Row) => string;
  value: (row: Row, series: string) => number;
  /** Words for a value (axis ticks and the bar's hover title). */
  format?: (value: number) => string;
  /** Stack the series in one bar (else side by side). */
  stacked?: boolean;
  /** Categories down the side, values across (else categories along the bottom). */
  horizontal?: boolean;
  height?: number;
  onSelect?: (row: Row, series: string) => void;
  'data-testid'?: string;
}

const AXIS = 28;

/** A round upper bound for the axis: 2, 4, 10, 20, 50 … (even, so its half is a whole number too). */
export function niceMax(max: number): number {
  if (max <= 2) return 2;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [2, 4, 5, 10]) if (m * p >= max && Number.isInteger((m * p) / 2)) return m * p;
  return 10 * p;
}

/** The element's width in CSS pixels, followed as it changes (the chart draws at 1:1 scale). */
function useWidth(): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(640);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const read = (): void => setWidth(Math.max(240, Math.round(el.clientWidth)));
    read();
    const observer = new ResizeObserver(read);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

export function BarChart<Row>({
  data,
  series,
  category,
  value,
  format = (v) => v.toLocaleString(),
  stacked = false,
  horizontal = false,
  height = 220,
  onSelect,
  ...rest
}: BarChartProps<Row>) {
  const [box, WIDTH] = useWidth();
  const totals = data.map((r) =>
    stacked
      ? series.reduce((sum, s) => sum + value(r, s.key), 0)
      : Math.max(0, ...series.map((s) => value(r, s.key))),
  );
  const top = niceMax(Math.max(0, ...totals));
  const ticks = [0, top / 2, top];
  const labelRoom = horizontal ? 120 : 64;
  const plot = horizontal
    ? { x: labelRoom, y: 8, w: WIDTH - labelRoom - 16, h: height - 8 - AXIS }
    : { x: labelRoom, y: 8, w: WIDTH - labelRoom - 8, h: height - 8 - AXIS };
  const band = (horizontal ? plot.h : plot.w) / Math.max(1, data.length);
  const scale = (v: number): number => (v / top) * (horizontal ? plot.w : plot.h);

  const bars = data.flatMap((row, i) => {
    let offset = 0;
    return series.map((s, j) => {
      const v = value(row, s.key);
      const len = scale(v);
      const thick = stacked ? band * 0.6 : (band * 0.8) / series.length;
      const start = stacked ? band * 0.2 : band * 0.1 + j * thick;
      const base = offset;
      if (stacked) offset += len;
      const geom = horizontal
        ? { x: plot.x + base, y: plot.y + i * band + start, width: len, height: thick }
        : { x: plot.x + i * band + start, y: plot.y + plot.h - base - len, width: thick, height: len };
      if (v <= 0) return null;
      return (
        <rect
          key={`${i}-${s.key}`}
          {...geom}
          className={`chart__bar chart__tone--${s.tone}`}
          data-series={s.name}
          onClick={onSelect ? () => onSelect(row, s.key) : undefined}
        >
          <title>{`${category(row)} · ${s.name}: ${format(v)}`}</title>
        </rect>
      );
    });
  });

  return (
    <div className="bar-chart" ref={box} data-testid={rest['data-testid']}>
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        className="bar-chart__svg"
        aria-hidden="true"
        focusable="false"
        data-clickable={onSelect ? 'true' : undefined}
      >
        {ticks.map((t) => {
          const at = scale(t);
          return horizontal ? (
            <g key={t}>
              <line
                className="chart__grid"
                x1={plot.x + at}
                x2={plot.x + at}
                y1={plot.y}
                y2={plot.y + plot.h}
              />
              <text className="chart__tick" x={plot.x + at} y={height - 8} textAnchor="middle">
                {format(t)}
              </text>
            </g>
          ) : (
            <g key={t}>
              <line
                className="chart__grid"
                x1={plot.x}
                x2={plot.x + plot.w}
                y1={plot.y + plot.h - at}
                y2={plot.y + plot.h - at}
              />
              <text className="chart__tick" x={plot.x - 6} y={plot.y + plot.h - at + 4} textAnchor="end">
                {format(t)}
              </text>
            </g>
          );
        })}
        {data.map((row, i) =>
          horizontal ? (
            <text
              key={i}
              className="chart__tick"
              x={plot.x - 8}
              y={plot.y + i * band + band / 2 + 4}
              textAnchor="end"
            >
              {category(row)}
            </text>
          ) : (
            <text
              key={i}
              className="chart__tick"
              x={plot.x + i * band + band / 2}
              y={height - 8}
              textAnchor="middle"
            >
              {category(row)}
            </text>
          ),
        )}
        {bars}
      </svg>
      <ul className="chart__legend" aria-label="Legend">
        {series.map((s) => (
          <li key={s.key} data-series={s.name}>
            <span className={`chart__swatch chart__tone--${s.tone}`} aria-hidden="true" />
            {s.name}
          </li>
        ))}
      </ul>
    </div>
  );
}
