import { Box, Text } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  color: string;
  values: (number | null)[];
  dash?: number[];
}

interface TimeSeriesChartProps {
  title: string;
  /** Unix seconds, one per point. */
  times: number[];
  series: ChartSeries[];
  unit?: string;
  height?: number;
}

/** A uPlot line chart that follows its container's width. */
export function TimeSeriesChart({ title, times, series, unit = '', height = 240 }: TimeSeriesChartProps) {
  const { ref: sizeRef, width } = useElementSize();
  const target = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);

  useEffect(() => {
    if (!target.current || width === 0) return;
    const options: uPlot.Options = {
      width,
      height,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [
        { stroke: '#495057', grid: { stroke: '#e9ecef' } },
        {
          stroke: '#495057',
          grid: { stroke: '#e9ecef' },
          values: (_u, ticks) => ticks.map((t) => `${formatTick(t)}${unit}`),
          // As wide as the longest label: a fixed width clipped "1,250 ms".
          size: (_u, values) => yAxisWidth(values ?? []),
        },
      ],
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          dash: s.dash,
          points: { show: times.length < 40 },
          value: (_u: uPlot, v: number | null) => (v === null || v === undefined ? '—' : `${Math.round(v * 10) / 10}${unit}`),
        })),
      ],
    };
    const data: uPlot.AlignedData = [times, ...series.map((s) => s.values)];
    chart.current?.destroy();
    chart.current = new uPlot(options, data, target.current);
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
  }, [width, height, times, series, unit]);

  const summary = series
    .map((s) => {
      const values = s.values.filter((v): v is number => v !== null);
      return `${s.label}: ${values.length ? `up to ${Math.max(...values)}${unit}` : 'no data'}`;
    })
    .join('; ');

  return (
    <Box component="figure" m={0} ref={sizeRef}>
      <Text component="figcaption" fw={600} size="sm" mb={4}>
        {title}
      </Text>
      <div ref={target} role="img" aria-label={`${title}. ${summary}`} />
    </Box>
  );
}

/** A tick value without float noise (0.30000000000000004) and with thousands grouped. */
export function formatTick(value: number): string {
  return Number(value.toPrecision(6)).toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/**
 * The width the y axis needs for its labels at uPlot's 12 px font: about
 * 7.5 px a character (digits are narrower, "m" wider), plus the tick and
 * the gap to the plot.
 */
export function yAxisWidth(labels: string[]): number {
  const longest = labels.reduce((n, label) => Math.max(n, label.length), 0);
  return Math.max(40, Math.ceil(longest * 7.5) + 18);
}
