import { Card, Flex, Heading, TextField } from '@radix-ui/themes';
import type { FieldPath, UseFormReturn } from 'react-hook-form';
import { Field } from '../../shared/Field';
import { durationRules, type PolicyFormValues } from './policy-form';
import { CheckboxLabel } from '../../shared/CheckboxLabel';

interface PenaltyFieldsProps {
  form: UseFormReturn<PolicyFormValues>;
  locked: boolean;
  message: (field: FieldPath<PolicyFormValues>) => string | undefined;
}

/** When and for how long a client that keeps exceeding the limit is blocked. */
export function PenaltyFields({ form, locked, message }: PenaltyFieldsProps) {
  const { register, watch } = form;
  const on = watch('penaltyOn');
  return (
    <Card>
      <Flex direction="column" gap="3">
        <Heading as="h3" size="3">
          Penalty
        </Heading>
        <CheckboxLabel disabled={locked} {...register('penaltyOn')}>
          Block repeat offenders
        </CheckboxLabel>
        {on && (
          <div className="field-grid">
            <Field label="Block after violations" error={message('afterViolations')}>
              <TextField.Root
                inputMode="numeric"
                disabled={locked}
                {...register('afterViolations')}
              />
            </Field>
            <Field label="Block for" hint="10 min, 1 h …" error={message('blockMs')}>
              <TextField.Root disabled={locked} {...register('blockMs', durationRules)} />
            </Field>
            <Field label="Escalation (×)" hint="Empty: 1" error={message('escalation')}>
              <TextField.Root inputMode="decimal" disabled={locked} {...register('escalation')} />
            </Field>
            <Field label="Longest block" hint="Empty: a day" error={message('maxBlockMs')}>
              <TextField.Root disabled={locked} {...register('maxBlockMs', durationRules)} />
            </Field>
            <Field
              label="Forget offences after"
              hint="Empty: 7 days"
              error={message('forgetAfterMs')}
            >
              <TextField.Root disabled={locked} {...register('forgetAfterMs', durationRules)} />
            </Field>
          </div>
        )}
      </Flex>
    </Card>
  );
}
