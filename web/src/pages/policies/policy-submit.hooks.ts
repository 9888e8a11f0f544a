import type { CandidateProposal, PolicyWriteRequest } from '@sluice/admin/api';
import { useState } from 'react';
import type { FieldPath, UseFormReturn } from 'react-hook-form';
import { ApiError } from '../../api/client';
import { formFieldOf, toWriteRequest, type PolicyFormValues } from './policy-form';

/** As the server takes it when a proposal does not say (docs/operations.md). */
export const DEFAULT_SAMPLE_PERCENT = 5;
const SAMPLE_RULE = 'must be a whole number of percent from 1 to 100';

/** The sample as typed, when it is a whole number from 1 to 100. */
function samplePercentOf(text: string): number | undefined {
  const value = Number(text.trim());
  return text.trim() !== '' && Number.isInteger(value) && value >= 1 && value <= 100
    ? value
    : undefined;
}

export interface PolicySubmitOptions {
  form: UseFormReturn<PolicyFormValues>;
  initial: PolicyFormValues;
  /** The version the form was read at; 0 creates. */
  version: number;
  canEditRules: boolean;
  /** `confirmReset`: sent again once the operator agreed to the reset the server named. */
  save: (body: PolicyWriteRequest, confirmReset?: boolean) => Promise<{ version: number }>;
  propose?: (body: CandidateProposal) => Promise<unknown>;
}

/**
 * Saving the form, or proposing it as the policy's candidate with a sample: what was sent, what
 * came back, and the server's refusal put at the fields it names.
 */
export function usePolicySubmit(options: PolicySubmitOptions) {
  const { form, initial, version, canEditRules, save, propose } = options;
  const { handleSubmit, setError, getValues } = form;
  const [savedVersion, setSavedVersion] = useState<number | null>(null);
  const [proposed, setProposed] = useState(false);
  const [sample, setSample] = useState(String(DEFAULT_SAMPLE_PERCENT));
  const [sampleError, setSampleError] = useState<string | undefined>(undefined);
  /** A save the server held back because it resets counts: what it said, and the body to send. */
  const [resetQuestion, setResetQuestion] = useState<{
    message: string;
    body: PolicyWriteRequest;
  } | null>(null);

  /** The server's refusal at the fields it names, and a summary above the form. */
  const showRefusal = (error: unknown): void => {
    const issues = error instanceof ApiError ? error.fieldErrors : {};
    let placed = false;
    if (issues.samplePercent !== undefined) {
      setSampleError(issues.samplePercent);
      placed = true;
    }
    for (const [path, message] of Object.entries(issues)) {
      const field = formFieldOf(path, getValues());
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
  };

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
          try {
            setSavedVersion((await save(body)).version);
          } catch (error) {
            const resets = error instanceof ApiError ? error.fieldErrors.confirm : undefined;
            if (resets === undefined) throw error;
            setResetQuestion({ message: resets, body });
          }
        }
      } catch (error) {
        showRefusal(error);
      }
    });

  /** The held-back save, sent confirmed; its refusal shown as any other. */
  const confirmReset = async () => {
    const question = resetQuestion;
    if (question === null) return;
    setResetQuestion(null);
    try {
      setSavedVersion((await save(question.body, true)).version);
    } catch (error) {
      showRefusal(error);
    }
  };
  const cancelReset = () => setResetQuestion(null);

  return {
    submitAs,
    savedVersion,
    proposed,
    sample,
    setSample,
    sampleError,
    resetQuestion: resetQuestion?.message ?? null,
    confirmReset,
    cancelReset,
  };
}
