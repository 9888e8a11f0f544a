import { TextField } from '@radix-ui/themes';
import { Field } from '../../shared/Field';

interface CandidateSampleFieldProps {
  sample: string;
  error: string | undefined;
  onChange: (sample: string) => void;
  /** Enter here proposes: the field belongs to the candidate, not to Save. */
  onPropose: () => void;
}

/** The share of identifiers a proposed candidate is decided for. */
export function CandidateSampleField({
  sample,
  error,
  onChange,
  onPropose,
}: CandidateSampleFieldProps) {
  return (
    <Field
      label="Candidate sample, % of identifiers"
      hint="A candidate is decided only for this share of identifiers, the same ones on every instance; each one decided costs Redis about as much as the live policy."
      error={error}
    >
      <TextField.Root
        inputMode="numeric"
        value={sample}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key !== 'Enter') return;
          event.preventDefault();
          onPropose();
        }}
      />
    </Field>
  );
}
