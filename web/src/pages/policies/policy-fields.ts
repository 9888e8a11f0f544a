import type { FieldPath, UseFormReturn } from 'react-hook-form';
import type { PolicyFormValues } from './policy-form';

/** What each part of the policy form gets: the form, whether its rules are locked, its errors. */
export interface PolicyFieldsProps {
  form: UseFormReturn<PolicyFormValues>;
  locked: boolean;
  message: (field: FieldPath<PolicyFormValues>) => string | undefined;
}
