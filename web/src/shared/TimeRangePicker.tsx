import { SegmentedControl } from '@radix-ui/themes';
import { TIME_RANGES, type TimeRange } from './time-range';

/** 5 min (live), 1 h, 24 h, 7 d. */
export function TimeRangePicker({
  value,
  onChange,
}: {
  value: TimeRange;
  onChange: (range: TimeRange) => void;
}) {
  return (
    <SegmentedControl.Root
      size="1"
      value={value.id}
      aria-label="Time range"
      onValueChange={(id) => onChange(TIME_RANGES.find((range) => range.id === id) ?? value)}
    >
      {TIME_RANGES.map((range) => (
        <SegmentedControl.Item key={range.id} value={range.id}>
          {range.label}
        </SegmentedControl.Item>
      ))}
    </SegmentedControl.Root>
  );
}
