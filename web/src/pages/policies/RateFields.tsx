import { Text, TextField } from '@radix-ui/themes';
import { parseDuration, rateText } from '../../shared/duration';
import { Field } from '../../shared/Field';
import {
  ALGORITHM_LABELS,
  algorithmFields,
  CALENDAR_UNIT_LABELS,
  durationRules,
} from './policy-form';
import type { PolicyFieldsProps } from './policy-fields';

/** How much a client may do: the algorithm and the parameters it reads. */
export function RateFields({
  form,
  locked,
  message,
  isNew,
}: PolicyFieldsProps & { isNew: boolean }) {
  const { register, watch } = form;
  const fields = algorithmFields(watch('algorithm'));
  const calendarUnit = watch('calendarUnit');
  const calendar = fields.calendar && calendarUnit !== '';
  return (
    <>
      {isNew && (
        <Field label="Name" error={message('name')}>
          <TextField.Root {...register('name')} />
        </Field>
      )}
      <Field label="Algorithm" error={message('algorithm')}>
        <select className="native-select" disabled={locked} {...register('algorithm')}>
          {Object.entries(ALGORITHM_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Limit" error={message('limit')}>
        <TextField.Root inputMode="numeric" disabled={locked} {...register('limit')} />
      </Field>
      {fields.calendar && (
        <Field
          label="Counted per"
          hint="A calendar period renews at its boundary, as a plan's allowance does."
          error={message('calendarUnit')}
        >
          <select className="native-select" disabled={locked} {...register('calendarUnit')}>
            <option value="">A window of fixed length</option>
            {Object.entries(CALENDAR_UNIT_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
      )}
      {calendar ? (
        <>
          <Field
            label="Time zone"
            hint="An IANA name: UTC, Europe/Paris …"
            error={message('timeZone')}
          >
            <TextField.Root disabled={locked} {...register('timeZone')} />
          </Field>
          {calendarUnit === 'month' && (
            <Field label="Renews on day" hint="1–31; empty: the 1st" error={message('anchorDay')}>
              <TextField.Root inputMode="numeric" disabled={locked} {...register('anchorDay')} />
            </Field>
          )}
        </>
      ) : (
        <Field
          label={fields.lease ? 'Lease lapses after' : fields.isWindow ? 'Window' : 'Period'}
          hint={
            fields.lease
              ? 'How long a slot stays taken if its instance dies: longer than any request'
              : '1 min, 90 s, 2 h …'
          }
          error={message('periodMs')}
        >
          <TextField.Root disabled={locked} {...register('periodMs', durationRules)} />
        </Field>
      )}
      {fields.burst && (
        <Field label="Burst" hint="Empty: the limit" error={message('burst')}>
          <TextField.Root inputMode="numeric" disabled={locked} {...register('burst')} />
        </Field>
      )}
      {fields.segments && (
        <Field label="Segments" hint="Empty: 10" error={message('segments')}>
          <TextField.Root inputMode="numeric" disabled={locked} {...register('segments')} />
        </Field>
      )}
      {fields.maxDelayMs && (
        <Field label="Longest delay" hint="Empty: the whole burst" error={message('maxDelayMs')}>
          <TextField.Root disabled={locked} {...register('maxDelayMs', durationRules)} />
        </Field>
      )}
      <Field label="Cost" error={message('cost')}>
        <TextField.Root inputMode="numeric" disabled={locked} {...register('cost')} />
      </Field>
    </>
  );
}

/**
 * "5 per minute" once the limit and the window both read ("2 at a time" for a policy that holds
 * slots); nothing while either does not.
 */
export function RateSentence({
  limit,
  period,
  slots = false,
}: {
  limit: string;
  period: string;
  slots?: boolean;
}) {
  const count = Number(limit);
  const periodMs = parseDuration(period);
  if (limit.trim() === '' || !Number.isInteger(count) || count < 1 || periodMs === undefined) {
    return null;
  }
  return (
    <Text size="2" color="gray" data-testid="rate-sentence">
      {slots ? `${count} at a time` : rateText(count, periodMs)}
    </Text>
  );
}
