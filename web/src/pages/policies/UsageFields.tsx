import { Card, Flex, Heading, Text, TextField } from '@radix-ui/themes';
import { Field } from '../../shared/Field';
import { CheckboxLabel } from '../../shared/CheckboxLabel';
import { algorithmFields } from './policy-form';
import type { PolicyFieldsProps } from './policy-fields';

/**
 * fixed-window: the request's real cost settled once its response is known (tokens a model
 * used), the cost reserved at admission.
 */
export function UsageFields({ form, locked, message }: PolicyFieldsProps) {
  const { register, watch } = form;
  if (!algorithmFields(watch('algorithm')).usage) return null;
  const on = watch('usageOn');
  return (
    <Card>
      <Flex direction="column" gap="3">
        <Heading as="h3" size="3">
          Charge after the response
        </Heading>
        <CheckboxLabel disabled={locked} {...register('usageOn')}>
          Settle the real cost once the response is known
        </CheckboxLabel>
        {on && (
          <>
            <Text size="2" color="gray">
              Cost is reserved at admission; the response header (or what the handler reports)
              replaces it, up to the most one request may be charged.
            </Text>
            <div className="field-grid">
              <Field
                label="Usage header"
                hint="e.g. x-usage-tokens; empty: reported by the handler"
                error={message('usageHeader')}
              >
                <TextField.Root disabled={locked} {...register('usageHeader')} />
              </Field>
              <Field label="Most per request" error={message('usageMaxCost')}>
                <TextField.Root
                  inputMode="numeric"
                  disabled={locked}
                  {...register('usageMaxCost')}
                />
              </Field>
              <Field label="A failed or aborted request" error={message('usageOnFailure')}>
                <select className="native-select" disabled={locked} {...register('usageOnFailure')}>
                  <option value="refund">Gives its reservation back</option>
                  <option value="keep">Keeps it charged</option>
                </select>
              </Field>
            </div>
          </>
        )}
      </Flex>
    </Card>
  );
}
