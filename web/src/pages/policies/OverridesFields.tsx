import { Badge, Button, Card, Flex, Heading, Text, TextField } from '@radix-ui/themes';
import { useFieldArray, type FieldPath, type UseFormReturn } from 'react-hook-form';
import { CheckboxLabel } from '../../shared/CheckboxLabel';
import { Field } from '../../shared/Field';
import { algorithmFields, type PolicyFormValues } from './policy-form';
import { useNow } from '../../shared/now.hooks';

interface OverridesFieldsProps {
  form: UseFormReturn<PolicyFormValues>;
  message: (field: FieldPath<PolicyFormValues>) => string | undefined;
}

/** The browser's time zone, which the expiry fields are written in. */
const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Per-identifier exceptions: another limit, no limit, or refused outright, until an expiry. */
export function OverridesFields({ form, message }: OverridesFieldsProps) {
  const { register, control, watch } = form;
  const now = useNow();
  const overrides = useFieldArray({ control, name: 'overrides' });
  const burst = watch('burst').trim();
  const algorithm = watch('algorithm');
  const key = watch('key').trim() || 'user';
  const tierNames = watch('tiers')
    .map((tier) => tier.name.trim())
    .filter((name) => name !== '');
  const capped = algorithmFields(algorithm).burst && burst !== '';
  // A policy counted per calendar month may renew on each identifier's own day.
  const monthly = algorithmFields(algorithm).calendar && watch('calendarUnit') === 'month';
  return (
    <Card>
      <Flex direction="column" gap="3">
        <Heading as="h3" size="3">
          Overrides
        </Heading>
        {overrides.fields.length === 0 && (
          <Text size="2" color="gray">
            No identifier is treated differently.
          </Text>
        )}
        {overrides.fields.map((override, index) => {
          const kind = watch(`overrides.${index}.kind`);
          const expiresAt = watch(`overrides.${index}.expiresAt`);
          const expired = expiresAt !== '' && new Date(expiresAt).getTime() <= now;
          return (
            <Flex
              key={override.id}
              gap="3"
              align="end"
              wrap="wrap"
              role="group"
              aria-label={`Override ${index + 1}`}
            >
              <Field label="Identifier" error={message(`overrides.${index}.identifier`)}>
                <TextField.Root {...register(`overrides.${index}.identifier`)} />
              </Field>
              <CheckboxLabel {...register(`overrides.${index}.prefix`)}>
                Prefix: all that start with it
              </CheckboxLabel>
              <Field
                label="Counted as"
                hint={`Empty: ${key}, the policy's key. ip: an address counted for want of it`}
                error={message(`overrides.${index}.keyKind`)}
              >
                <TextField.Root placeholder={key} {...register(`overrides.${index}.keyKind`)} />
              </Field>
              <Field label="Treatment" error={message(`overrides.${index}.kind`)}>
                <select className="native-select" {...register(`overrides.${index}.kind`)}>
                  <option value="limit">its own limit</option>
                  <option value="unlimited">unlimited</option>
                  <option value="deny">always refused</option>
                  {tierNames.length > 0 && <option value="tier">a tier</option>}
                  {monthly && <option value="anchor">only its renewal day</option>}
                </select>
              </Field>
              {kind === 'tier' && (
                <Field label="Its tier" error={message(`overrides.${index}.tier`)}>
                  <select className="native-select" {...register(`overrides.${index}.tier`)}>
                    <option value="">choose…</option>
                    {tierNames.map((name) => (
                      <option key={name} value={name}>
                        {name}
                      </option>
                    ))}
                  </select>
                </Field>
              )}
              {kind === 'limit' && (
                <Field
                  label="Its limit"
                  {...(capped ? { hint: `at most ${burst} at once: the burst still applies` } : {})}
                  error={message(`overrides.${index}.limit`)}
                >
                  <TextField.Root inputMode="numeric" {...register(`overrides.${index}.limit`)} />
                </Field>
              )}
              {monthly && (
                <Field
                  label="Renews on day"
                  hint="1–31: its billing day; empty: the policy's"
                  error={message(`overrides.${index}.anchorDay`)}
                >
                  <TextField.Root
                    inputMode="numeric"
                    {...register(`overrides.${index}.anchorDay`)}
                  />
                </Field>
              )}
              <Field
                label="Expires"
                hint={`Empty: never. In ${TIME_ZONE} time`}
                error={message(`overrides.${index}.expiresAt`)}
              >
                <TextField.Root
                  type="datetime-local"
                  {...register(`overrides.${index}.expiresAt`)}
                />
              </Field>
              {expired && <Badge color="gray">expired: no longer applies</Badge>}
              <Button
                type="button"
                variant="soft"
                color="red"
                onClick={() => overrides.remove(index)}
                aria-label={`Remove override ${index + 1}`}
              >
                Remove
              </Button>
            </Flex>
          );
        })}
        <Flex>
          <Button
            type="button"
            variant="soft"
            onClick={() =>
              overrides.append({
                identifier: '',
                keyKind: '',
                prefix: false,
                kind: 'limit',
                limit: '',
                tier: '',
                anchorDay: '',
                expiresAt: '',
              })
            }
          >
            Add override
          </Button>
        </Flex>
      </Flex>
    </Card>
  );
}
