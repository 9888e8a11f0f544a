import type { PolicyView } from '@sluice/admin/api';
import { Card, DataList, Heading } from '@radix-ui/themes';
import { formatDuration, formatTime } from '../../shared/format';
import { ALGORITHM_LABELS } from './policy-form';

/** The policy as a viewer sees it: every rule, no control to change one. */
export function PolicySummary({ policy }: { policy: PolicyView }) {
  const rows: Array<[string, string]> = [
    ['Algorithm', `${ALGORITHM_LABELS[policy.algorithm]} (${policy.algorithm})`],
    ['Limit', String(policy.limit)],
    [
      'Period',
      policy.calendar === null
        ? formatDuration(policy.periodMs)
        : `each ${policy.calendar.unit} in ${policy.calendar.timeZone}${policy.calendar.anchorDay === null ? '' : `, renewed on day ${policy.calendar.anchorDay}`}`,
    ],
    ['Burst', policy.burst === null ? '—' : String(policy.burst)],
    ['Segments', policy.segments === null ? '—' : String(policy.segments)],
    ['Longest delay', policy.maxDelayMs === null ? '—' : formatDuration(policy.maxDelayMs)],
    ['Cost', String(policy.cost)],
    ['Key', policy.key],
    ['User-Agent pattern', policy.match?.userAgent ?? '—'],
    ['Count', policy.count],
    ['Mode', policy.mode],
    ['When Redis fails', policy.onStoreError],
    [
      'Consistency',
      policy.consistency === 'eventual'
        ? `eventual, synced every ${formatDuration(policy.syncMs)}`
        : 'exact',
    ],
    [
      'Penalty',
      policy.penalty === null
        ? 'none'
        : `after ${policy.penalty.afterViolations} violation(s), block ${formatDuration(policy.penalty.blockMs)}, ×${policy.penalty.escalation} each time up to ${formatDuration(policy.penalty.maxBlockMs)}`,
    ],
    [
      'Overrides',
      policy.overrides.length === 0
        ? 'none'
        : policy.overrides
            .map(
              (override) =>
                `${override.identifier}${override.prefix ? '*' : ''}${override.keyKind === policy.key ? '' : ` (${override.keyKind})`}: ${override.tier ? `tier ${override.tier}` : override.unlimited ? 'unlimited' : override.limit === 0 ? 'refused' : `limit ${override.limit}`}${override.expiresAt === null ? '' : ` until ${formatTime(new Date(override.expiresAt).toISOString())}`}`,
            )
            .join('; '),
    ],
    [
      'Tiers',
      policy.tiers === null
        ? 'none'
        : Object.entries(policy.tiers)
            .map(
              ([name, tier]) =>
                `${name}: ${tier.limit}${tier.burst === null ? '' : `, burst ${tier.burst}`}`,
            )
            .join('; '),
    ],
    ['Description', policy.description ?? '—'],
  ];
  return (
    <Card>
      <Heading as="h3" size="3" mb="3">
        Rules
      </Heading>
      <DataList.Root>
        {rows.map(([label, value]) => (
          <DataList.Item key={label}>
            <DataList.Label>{label}</DataList.Label>
            <DataList.Value>{value}</DataList.Value>
          </DataList.Item>
        ))}
      </DataList.Root>
    </Card>
  );
}
