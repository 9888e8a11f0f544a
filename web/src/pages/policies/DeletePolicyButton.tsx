import type { PolicyView } from '@sluice/admin/api';
import { AlertDialog, Button, Flex, TextField } from '@radix-ui/themes';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Field } from '../../shared/Field';
import { useDeletePolicy } from './policies.hooks';
import { ErrorCallout } from '../../shared/ErrorCallout';

/** Deletes an edited policy; one the code defines goes back to the code's default. */
export function DeletePolicyButton({ policy }: { policy: PolicyView }) {
  const navigate = useNavigate();
  const remove = useDeletePolicy(policy.name);
  const [comment, setComment] = useState('');
  const returnsToCode = policy.codeDefault !== null;
  const confirm = async () => {
    const result = await remove.mutateAsync({ version: policy.version, comment: comment || null });
    if (result.policy === null) await navigate('/policies');
  };
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger>
        <Button color="red" variant="soft">
          {returnsToCode ? 'Return to code default' : 'Delete policy'}
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Content maxWidth="460px">
        <AlertDialog.Title>
          {returnsToCode ? `Return ${policy.name} to its code default?` : `Delete ${policy.name}?`}
        </AlertDialog.Title>
        <AlertDialog.Description size="2">
          {returnsToCode
            ? 'The operators’ changes are dropped and every instance applies the default the code defines.'
            : 'Routes that name it will no longer be limited by it.'}
        </AlertDialog.Description>
        <Flex direction="column" gap="3" mt="3">
          <Field label="Change note">
            <TextField.Root value={comment} onChange={(event) => setComment(event.target.value)} />
          </Field>
          <ErrorCallout error={remove.error} />
        </Flex>
        <Flex gap="3" mt="4" justify="end">
          <AlertDialog.Cancel>
            <Button variant="soft" color="gray">
              Cancel
            </Button>
          </AlertDialog.Cancel>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() => void confirm().catch(() => undefined)}
          >
            {returnsToCode ? 'Return to default' : 'Delete'}
          </Button>
        </Flex>
      </AlertDialog.Content>
    </AlertDialog.Root>
  );
}
