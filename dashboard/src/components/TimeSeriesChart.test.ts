import { describe, expect, it } from 'vitest';
import { formatTick, yAxisWidth } from './TimeSeriesChart';

describe('latency chart axis', () => {
  it('is as wide as its longest label, so none is clipped', () => {
    expect(yAxisWidth(['0 ms', '500 ms', '1,000 ms', '1,500 ms'])).toBeGreaterThanOrEqual(8 * 7.5);
    expect(yAxisWidth(['12,500.5 ms'])).toBeGreaterThan(yAxisWidth(['1,000 ms']));
    expect(yAxisWidth([])).toBe(40);
  });

  it('writes ticks without float noise', () => {
    expect(formatTick(0.1 + 0.2)).toBe('0.3');
    expect(formatTick(1500)).toBe('1,500');
    expect(formatTick(2.5)).toBe('2.5');
  });
});
