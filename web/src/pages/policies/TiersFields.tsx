import { Button, Card, Flex, Heading, Text, TextField } from '@radix-ui/themes';
import { useFieldArray, type FieldPath, type UseFormReturn } from 'react-hook-form';
import { Field } from '../../shared/Field';
import {
  algorithmFields,
  durationRules,
  repeatedTierNames,
  type PolicyFormValues,
} from './policy-form';

interface TiersFieldsProps {
  form: UseFormReturn<PolicyFormValues>;
  locked: boolean;
  message: (field: FieldPath<PolicyFormValues>) => string | undefined;
}

/**
 * Named rates by plan (docs/guide.md, tiers): each overrides the limit, and the burst or longest
 * delay where the algorithm has them; the window and key stay the policy's.
 */
export function TiersFields({ form, locked, message }: TiersFieldsProps) {
  const { register, control, watch } = form;
  const tiers = useFieldArray({ control, name: 'tiers' });
  const fields = algorithmFields(watch('algorithm'));
  const repeated = repeatedTierNames(watch('tiers'));
  return (
    <Card>
      <Flex direction="column" gap="3">
        <Heading as="h3" size="3">
          Tiers
        </Heading>
        <Text size="2" color="gray">
          {tiers.fields.length === 0
            ? 'Every request is decided at the rate above.'
            : "A request on a plan is decided at its tier's rate, against the same count: moving between tiers resets nothing. Others get the rate above."}
        </Text>
        {tiers.fields.map((tier, index) => {
          const name = watch(`tiers.${index}.name`).trim();
          return (
            <Flex
              key={tier.id}
              gap="3"
              align="end"
              wrap="wrap"
              role="group"
              aria-label={`Tier ${index + 1}`}
            >
              <Field
                label="Tier"
                hint="free, pro …"
                error={
                  message(`tiers.${index}.name`) ??
                  (repeated.has(name) ? 'Another tier has this name' : undefined)
                }
              >
                <TextField.Root disabled={locked} {...register(`tiers.${index}.name`)} />
              </Field>
              <Field label="Tier limit" error={message(`tiers.${index}.limit`)}>
                <TextField.Root
                  inputMode="numeric"
                  disabled={locked}
                  {...register(`tiers.${index}.limit`)}
                />
              </Field>
              {fields.burst && (
                <Field
                  label="Tier burst"
                  hint="Empty: its limit"
                  error={message(`tiers.${index}.burst`)}
                >
                  <TextField.Root
                    inputMode="numeric"
                    disabled={locked}
                    {...register(`tiers.${index}.burst`)}
                  />
                </Field>
              )}
              {fields.maxDelayMs && (
                <Field
                  label="Tier longest delay"
                  hint="Empty: (burst − 1) intervals"
                  error={message(`tiers.${index}.maxDelayMs`)}
                >
                  <TextField.Root
                    disabled={locked}
                    {...register(`tiers.${index}.maxDelayMs`, durationRules)}
                  />
                </Field>
              )}
              {!locked && (
                <Button
                  type="button"
                  variant="soft"
                  color="red"
                  onClick={() => tiers.remove(index)}
                  aria-label={`Remove tier ${index + 1}`}
                >
                  Remove
                </Button>
              )}
            </Flex>
          );
        })}
        {!locked && (
          <Flex>
            <Button
              type="button"
              variant="soft"
              onClick={() => tiers.append({ name: '', limit: '', burst: '', maxDelayMs: '' })}
            >
              Add tier
            </Button>
          </Flex>
        )}
      </Flex>
    </Card>
  );
}
