import type { CandidateProposal, PolicyWriteRequest } from '@sluice/admin/api';
import {
  AlertDialog,
  Button,
  Callout,
  Card,
  Flex,
  Heading,
  Text,
  TextArea,
  TextField,
} from '@radix-ui/themes';
import { traitsOf } from '@sluice/nest/simulator';
import { useEffect } from 'react';
import { useForm, type FieldPath } from 'react-hook-form';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { Field } from '../../shared/Field';
import { CandidateSampleField } from './CandidateSampleField';
import { OverridesFields } from './OverridesFields';
import { PenaltyFields } from './PenaltyFields';
import { TiersFields } from './TiersFields';
import { RateFields, RateSentence } from './RateFields';
import { UsageFields } from './UsageFields';
import { ScopeFields } from './ScopeFields';
import type { PolicyFormValues } from './policy-form';
import { usePolicySubmit } from './policy-submit.hooks';

interface PolicyFormProps {
  initial: PolicyFormValues;
  /** The version the form was read at; 0 creates. */
  version: number;
  isNew: boolean;
  /** Admins edit every rule; operators only overrides and enforce/shadow. */
  canEditRules: boolean;
  save: (body: PolicyWriteRequest, confirmReset?: boolean) => Promise<{ version: number }>;
  /** Proposes the edited policy as its shadow candidate instead of saving it. */
  propose?: (body: CandidateProposal) => Promise<unknown>;
  /** Whether the policy has a candidate now: the note of a proposal goes once it is gone. */
  hasCandidate?: boolean;
  onValuesChange: (values: PolicyFormValues) => void;
}

/**
 * A policy's editor: its rate and scope, penalty and overrides (a component each), saved or
 * proposed as a candidate by usePolicySubmit.
 */
export function PolicyForm(props: PolicyFormProps) {
  const { initial, isNew, canEditRules, propose, onValuesChange } = props;
  const form = useForm<PolicyFormValues>({ defaultValues: initial });
  const { register, formState, watch, reset } = form;
  const errors = formState.errors;
  const locked = !canEditRules;
  const submit = usePolicySubmit({ ...props, form });
  const save = submit.submitAs('save');
  const proposeNow = () => void submit.submitAs('propose')();

  useEffect(() => reset(initial), [initial, reset]);
  useEffect(() => {
    const subscription = watch((current) => onValuesChange(current as PolicyFormValues));
    return () => subscription.unsubscribe();
  }, [watch, onValuesChange]);

  const message = (field: FieldPath<PolicyFormValues>) =>
    (
      field
        .split('.')
        .reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], errors) as
        { message?: string } | undefined
    )?.message;
  const parts = { form, locked, message };

  return (
    <form onSubmit={(event) => void save(event)} noValidate aria-label="Policy">
      <Flex direction="column" gap="4">
        <ErrorCallout>{errors.root?.server?.message}</ErrorCallout>
        <ResetQuestion
          message={submit.resetQuestion}
          onConfirm={() => void submit.confirmReset()}
          onCancel={submit.cancelReset}
        />
        {submit.proposed && props.hasCandidate !== false && (
          <Callout.Root color="green" role="status">
            <Callout.Text>
              Proposed as this policy&apos;s candidate. Every instance decides it beside the live
              policy within a second, for {submit.sample} % of identifiers, without refusing
              anything.
            </Callout.Text>
          </Callout.Root>
        )}
        {submit.savedVersion !== null && (
          <Callout.Root color="green" role="status">
            <Callout.Text>
              Saved as version {submit.savedVersion}. Every instance applies it within a second.
            </Callout.Text>
          </Callout.Root>
        )}
        {locked && (
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
              <RateSentence
                limit={watch('limit')}
                period={watch('periodMs')}
                slots={traitsOf(watch('algorithm')).holdsSlots}
              />
            </Flex>
            <div className="field-grid">
              <RateFields {...parts} isNew={isNew} />
              <ScopeFields {...parts} />
            </div>
            <Field label="Description" error={message('description')}>
              <TextArea disabled={locked} {...register('description')} />
            </Field>
          </Flex>
        </Card>
        <TiersFields {...parts} />
        <UsageFields {...parts} />
        <PenaltyFields {...parts} />
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
              onClick={proposeNow}
            >
              Try as candidate
            </Button>
          )}
        </Flex>
        {propose !== undefined && (
          <CandidateSampleField
            sample={submit.sample}
            error={submit.sampleError}
            onChange={submit.setSample}
            onPropose={proposeNow}
          />
        )}
      </Flex>
    </form>
  );
}

/** Asks before a save the server says resets every identifier's count, in its own words. */
function ResetQuestion(props: {
  message: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <AlertDialog.Root
      open={props.message !== null}
      onOpenChange={(open) => !open && props.onCancel()}
    >
      <AlertDialog.Content maxWidth="480px">
        <AlertDialog.Title>Save and reset the counts?</AlertDialog.Title>
        <AlertDialog.Description size="2">{props.message}</AlertDialog.Description>
        <Flex gap="3" mt="4" justify="end">
          <AlertDialog.Cancel>
            <Button variant="soft" color="gray">
              Cancel
            </Button>
          </AlertDialog.Cancel>
          <AlertDialog.Action>
            <Button color="red" onClick={props.onConfirm}>
              Save and reset
            </Button>
          </AlertDialog.Action>
        </Flex>
      </AlertDialog.Content>
    </AlertDialog.Root>
  );
}
