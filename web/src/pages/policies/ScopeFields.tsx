import { TextField } from '@radix-ui/themes';
import { Field } from '../../shared/Field';
import { durationRules } from './policy-form';
import type { PolicyFieldsProps } from './policy-fields';

/** Whom the policy counts and how it behaves: key, clients, mode, outages, consistency. */
export function ScopeFields({ form, locked, message }: PolicyFieldsProps) {
  const { register, watch } = form;
  const eventual = watch('consistency') === 'eventual';
  return (
    <>
      <Field label="Key" hint="ip, user, header:<name> or a tracker" error={message('key')}>
        <TextField.Root disabled={locked} {...register('key')} />
      </Field>
      <Field label="User-Agent pattern" hint="Empty: every client" error={message('userAgent')}>
        <TextField.Root disabled={locked} {...register('userAgent')} />
      </Field>
      <Field label="Count" error={message('count')}>
        <select className="native-select" disabled={locked} {...register('count')}>
          <option value="all">every request</option>
          <option value="failures">failed requests only</option>
        </select>
      </Field>
      <Field
        label="Mode"
        hint="Shadow counts and reports but never refuses"
        error={message('mode')}
      >
        <select className="native-select" {...register('mode')}>
          <option value="enforce">enforce</option>
          <option value="shadow">shadow</option>
          <option value="off" disabled={locked}>
            off
          </option>
        </select>
      </Field>
      <Field label="When Redis fails" error={message('onStoreError')}>
        <select className="native-select" disabled={locked} {...register('onStoreError')}>
          <option value="allow">allow</option>
          <option value="deny">deny</option>
          <option value="local">limit in each process</option>
        </select>
      </Field>
      <Field
        label="Consistency"
        hint="Eventual decides in each instance and sends the hits to Redis every interval"
        error={message('consistency')}
      >
        <select className="native-select" disabled={locked} {...register('consistency')}>
          <option value="exact">exact: every request in Redis</option>
          <option value="eventual">eventual: decided here, synced</option>
        </select>
      </Field>
      {eventual && (
        <Field label="Sync every" hint="5 ms to 1 min" error={message('syncMs')}>
          <TextField.Root disabled={locked} {...register('syncMs', durationRules)} />
        </Field>
      )}
    </>
  );
}
