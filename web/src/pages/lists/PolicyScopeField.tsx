import { Flex, Text } from '@radix-ui/themes';
import { useId } from 'react';
import { CheckboxLabel } from '../../shared/CheckboxLabel';
import { usePolicies } from '../../shared/policies.hooks';

interface PolicyScopeFieldProps {
  /** null: every policy; else the policies ticked. */
  value: string[] | null;
  onChange: (value: string[] | null) => void;
  error?: string | undefined;
}

/** What a list entry applies to: every policy, or the policies ticked (at most 64). */
export function PolicyScopeField({ value, onChange, error }: PolicyScopeFieldProps) {
  const policies = usePolicies();
  const errorId = useId();
  const every = value === null;
  const toggle = (name: string, ticked: boolean) => {
    const current = value ?? [];
    onChange(ticked ? [...current, name] : current.filter((each) => each !== name));
  };
  return (
    <fieldset
      className="plain-fieldset"
      aria-invalid={error !== undefined}
      aria-describedby={error === undefined ? undefined : errorId}
    >
      <legend>Applies to</legend>
      <Flex direction="column" gap="1" mt="1">
        <Text as="label" size="2">
          <Flex gap="2" align="center">
            <input type="radio" checked={every} onChange={() => onChange(null)} />
            Every policy
          </Flex>
        </Text>
        <Text as="label" size="2">
          <Flex gap="2" align="center">
            <input type="radio" checked={!every} onChange={() => onChange(value ?? [])} />
            Only the policies ticked
          </Flex>
        </Text>
        {!every && (
          <Flex direction="column" gap="1" pl="5" role="group" aria-label="Policies">
            {policies.data?.policies.map((policy) => (
              <CheckboxLabel
                key={policy.name}
                checked={value.includes(policy.name)}
                onChange={(event) => toggle(policy.name, event.target.checked)}
              >
                {policy.name}
              </CheckboxLabel>
            ))}
          </Flex>
        )}
      </Flex>
      {error !== undefined && (
        <Text as="p" id={errorId} size="1" color="red">
          {error}
        </Text>
      )}
    </fieldset>
  );
}
