import { forwardRef, type SelectHTMLAttributes } from 'react';
import { usePolicies } from './policies.hooks';

type PolicySelectProps = SelectHTMLAttributes<HTMLSelectElement> & {
  /** The first option's text, for "any policy"; absent: a policy must be chosen. */
  anyLabel?: string;
};

/** A native select of the stored policies' names. */
export const PolicySelect = forwardRef<HTMLSelectElement, PolicySelectProps>(function PolicySelect(
  { anyLabel, ...props },
  ref,
) {
  const policies = usePolicies();
  return (
    <select ref={ref} className="native-select" {...props}>
      <option value="">{anyLabel ?? 'Choose a policy'}</option>
      {policies.data?.policies.map((policy) => (
        <option key={policy.name} value={policy.name}>
          {policy.name}
        </option>
      ))}
    </select>
  );
});
