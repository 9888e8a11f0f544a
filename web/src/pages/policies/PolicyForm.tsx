import type { CandidateProposal, PolicyWriteRequest } from '@sluice/admin/api';
import { Button, Callout, Card, Flex, Heading, Text, TextArea, TextField } from '@radix-ui/themes';
import { useEffect, useState } from 'react';
import { useForm, type FieldPath } from 'react-hook-form';
import { ApiError } from '../../api/client';
import { parseDuration, rateText } from '../../shared/duration';
import { Field } from '../../shared/Field';
import { OverridesFields } from './OverridesFields';
import { PenaltyFields } from './PenaltyFields';
import {
  ALGORITHM_LABELS,
  algorithmFields,
  durationRules,
  formFieldOf,
  toWriteRequest,
  type PolicyFormValues,
} from './policy-form';

/** As the server takes it when a proposal does not say (docs/operations.md). */
const DEFAULT_SAMPLE_PERCENT = 5;
const SAMPLE_RULE = 'must be a whole number of percent from 1 to 100';

/** The sample as typed, when it is a whole number from 1 to 100. */
function samplePercentOf(text: string): number | undefined {
  const value = Number(text.trim());
  return text.trim() !== '' && Number.isInteger(value) && value >= 1 && value <= 100
    ? value
    : undefined;
}

interface PolicyFormProps {
  initial: PolicyFormValues;
  /** The version the form was read at; 0 creates. */
  version: number;
  isNew: boolean;
  /** Admins edit every rule; operators only overrides and enforce/shadow. */
  canEditRules: boolean;
  save: (body: PolicyWriteRequest) => Promise<{ version: number }>;
  /** Proposes the edited policy as its shadow candidate instead of saving it. */
  propose?: (body: CandidateProposal) => Promise<unknown>;
  /** Whether the policy has a candidate now: the note of a proposal goes once it is gone. */
  hasCandidate?: boolean;
  onValuesChange: (values: PolicyFormValues) => void;
}

export function PolicyForm(props: PolicyFormProps) {
  const { initial, version, isNew, canEditRules, save, propose, onValuesChange } = props;
  const form = useForm<PolicyFormValues>({ defaultValues: initial });
  const { register, handleSubmit, formState, setError, watch, reset } = form;
  const errors = formState.errors;
  const values = watch();
  const fields = algorithmFields(values.algorithm);
  const ruleLocked = !canEditRules;
  const [savedVersion, setSavedVersion] = useState<number | null>(null);
  const [proposed, setProposed] = useState(false);
  const [sample, setSample] = useState(String(DEFAULT_SAMPLE_PERCENT));
  const [sampleError, setSampleError] = useState<string | undefined>(undefined);

  useEffect(() => reset(initial), [initial, reset]);
  useEffect(() => {
    const subscription = watch((current) => onValuesChange(current as PolicyFormValues));
    return () => subscription.unsubscribe();
  }, [watch, onValuesChange]);

  const submitAs = (intent: 'save' | 'propose') =>
    handleSubmit(async (current) => {
      // Locked controls are disabled and may not report their values: the rules come as read.
      const sent = canEditRules
        ? current
        : {
            ...initial,
            mode: current.mode,
            overrides: current.overrides,
            comment: current.comment,
          };
      setSavedVersion(null);
      setProposed(false);
      setSampleError(undefined);
      try {
        const body = toWriteRequest(sent, version);
        if (intent === 'propose' && propose !== undefined) {
          const samplePercent = samplePercentOf(sample);
          if (samplePercent === undefined) {
            setSampleError(SAMPLE_RULE);
            return;
          }
          await propose({ ...body, samplePercent });
          setProposed(true);
        } else {
          setSavedVersion((await save(body)).version);
        }
      } catch (error) {
        showRefusal(error);
      }
    });
  const submit = submitAs('save');

  /** The server's refusal at the fields it names, and a summary above the form. */
  function showRefusal(error: unknown): void {
    const issues = error instanceof ApiError ? error.fieldErrors : {};
    let placed = false;
    if (issues.samplePercent !== undefined) {
      setSampleError(issues.samplePercent);
      placed = true;
    }
    for (const [path, message] of Object.entries(issues)) {
      const field = formFieldOf(path);
      if (field === undefined) continue;
      setError(field as FieldPath<PolicyFormValues>, { message });
      placed = true;
    }
    setError('root.server', {
      message:
        error instanceof ApiError && error.status === 409
          ? `Someone changed this policy since you opened it (now version ${error.body?.currentVersion ?? '?'}). Reload to see their change.`
          : placed
            ? 'The server refused some fields; see the messages below them.'
            : (error as Error).message,
    });
  }

  const message = (field: FieldPath<PolicyFormValues>) =>
    (
      field
        .split('.')
        .reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], errors) as
        { message?: string } | undefined
    )?.message;

  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label="Policy">
      <Flex direction="column" gap="4">
        {errors.root?.server?.message !== undefined && (
          <Callout.Root color="red" role="alert">
            <Callout.Text>{errors.root.server.message}</Callout.Text>
          </Callout.Root>
        )}
        {proposed && props.hasCandidate !== false && (
          <Callout.Root color="green" role="status">
            <Callout.Text>
              Proposed as this policy&apos;s candidate. Every instance decides it beside the live
              policy within a second, for {sample} % of identifiers, without refusing anything.
            </Callout.Text>
          </Callout.Root>
        )}
        {savedVersion !== null && (
          <Callout.Root color="green" role="status">
            <Callout.Text>
              Saved as version {savedVersion}. Every instance applies it within a second.
            </Callout.Text>
          </Callout.Root>
        )}
        {ruleLocked && (
          <Text size="2" color="gray">
            Operators change overrides and switch between enforce and shadow; the other rules need
            the admin role.
          </Text>
        )}
        <Card>
          <Flex direction="column" gap="3">
            <Flex justify="between" align="baseline" gap="3" wrap="wrap">
              <Heading as="h3" size="3">
                Rate
              </Heading>
              <RateSentence limit={values.limit} period={values.periodMs} />
            </Flex>
            <div className="field-grid">
              {isNew && (
                <Field label="Name" error={message('name')}>
                  <TextField.Root {...register('name')} />
                </Field>
              )}
              <Field label="Algorithm" error={message('algorithm')}>
                <select className="native-select" disabled={ruleLocked} {...register('algorithm')}>
                  {Object.entries(ALGORITHM_LABELS).map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Limit" error={message('limit')}>
                <TextField.Root inputMode="numeric" disabled={ruleLocked} {...register('limit')} />
              </Field>
              <Field
                label={fields.isWindow ? 'Window' : 'Period'}
                hint="1 min, 90 s, 2 h …"
                error={message('periodMs')}
              >
                <TextField.Root disabled={ruleLocked} {...register('periodMs', durationRules)} />
              </Field>
              {fields.burst && (
                <Field label="Burst" hint="Empty: the limit" error={message('burst')}>
                  <TextField.Root
                    inputMode="numeric"
                    disabled={ruleLocked}
                    {...register('burst')}
                  />
                </Field>
              )}
              {fields.segments && (
                <Field label="Segments" hint="Empty: 10" error={message('segments')}>
                  <TextField.Root
                    inputMode="numeric"
                    disabled={ruleLocked}
                    {...register('segments')}
                  />
                </Field>
              )}
              {fields.maxDelayMs && (
                <Field
                  label="Longest delay"
                  hint="Empty: the whole burst"
                  error={message('maxDelayMs')}
                >
                  <TextField.Root
                    disabled={ruleLocked}
                    {...register('maxDelayMs', durationRules)}
                  />
                </Field>
              )}
              <Field label="Cost" error={message('cost')}>
                <TextField.Root inputMode="numeric" disabled={ruleLocked} {...register('cost')} />
              </Field>
              <Field label="Key" hint="ip, user, header:<name> or a tracker" error={message('key')}>
                <TextField.Root disabled={ruleLocked} {...register('key')} />
              </Field>
              <Field
                label="User-Agent pattern"
                hint="Empty: every client"
                error={message('userAgent')}
              >
                <TextField.Root disabled={ruleLocked} {...register('userAgent')} />
              </Field>
              <Field label="Count" error={message('count')}>
                <select className="native-select" disabled={ruleLocked} {...register('count')}>
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
                  <option value="off" disabled={ruleLocked}>
                    off
                  </option>
                </select>
              </Field>
              <Field label="When Redis fails" error={message('onStoreError')}>
                <select
                  className="native-select"
                  disabled={ruleLocked}
                  {...register('onStoreError')}
                >
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
                <select
                  className="native-select"
                  disabled={ruleLocked}
                  {...register('consistency')}
                >
                  <option value="exact">exact: every request in Redis</option>
                  <option value="eventual">eventual: decided here, synced</option>
                </select>
              </Field>
              {values.consistency === 'eventual' && (
                <Field label="Sync every" hint="5 ms to 1 min" error={message('syncMs')}>
                  <TextField.Root disabled={ruleLocked} {...register('syncMs', durationRules)} />
                </Field>
              )}
            </div>
            <Field label="Description" error={message('description')}>
              <TextArea disabled={ruleLocked} {...register('description')} />
            </Field>
          </Flex>
        </Card>
        <PenaltyFields form={form} locked={ruleLocked} message={message} />
        <OverridesFields form={form} message={message} />
        <Field
          label="Change note"
          hint="Kept with the revision and the audit"
          error={message('comment')}
        >
          <TextField.Root {...register('comment')} />
        </Field>
        <Flex gap="3">
          <Button type="submit" loading={formState.isSubmitting}>
            Save
          </Button>
          {propose !== undefined && (
            <Button
              type="button"
              variant="soft"
              loading={formState.isSubmitting}
              onClick={() => void submitAs('propose')()}
            >
              Try as candidate
            </Button>
          )}
        </Flex>
        {propose !== undefined && (
          <Field
            label="Candidate sample, % of identifiers"
            hint="A candidate is decided only for this share of identifiers, the same ones on every instance; each one decided costs Redis about as much as the live policy."
            error={sampleError}
          >
            <TextField.Root
              inputMode="numeric"
              value={sample}
              onChange={(event) => setSample(event.target.value)}
              onKeyDown={(event) => {
                // Enter here proposes, as the field belongs to the candidate, not to Save.
                if (event.key !== 'Enter') return;
                event.preventDefault();
                void submitAs('propose')();
              }}
            />
          </Field>
        )}
      </Flex>
    </form>
  );
}

/** "5 per minute" once the limit and the window both read; nothing while either does not. */
function RateSentence({ limit, period }: { limit: string; period: string }) {
  const count = Number(limit);
  const periodMs = parseDuration(period);
  if (limit.trim() === '' || !Number.isInteger(count) || count < 1 || periodMs === undefined) {
    return null;
  }
  return (
    <Text size="2" color="gray" data-testid="rate-sentence">
      {rateText(count, periodMs)}
    </Text>
  );
}
