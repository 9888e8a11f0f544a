import { AlertDialog, Badge, Button, Flex, Switch, Text, TextField } from '@radix-ui/themes';
import { useId, useState } from 'react';
import { useCan } from '../../shared/session.hooks';
import { Field } from '../../shared/Field';
import { useEnforcement, useSetEnforcement } from './overview.hooks';
import { ErrorCallout } from '../../shared/ErrorCallout';

/** The global switch: off, no request is decided (nor counted) and none refused. Admins only. */
export function EnforcementSwitch() {
  const isAdmin = useCan('admin');
  const labelId = useId();
  const state = useEnforcement();
  /** The state asked to be confirmed: both ways change every instance at once. */
  const [confirming, setConfirming] = useState<boolean | null>(null);
  const [comment, setComment] = useState('');
  const change = useSetEnforcement(() => {
    setConfirming(null);
    setComment('');
  });
  const turn = (enabled: boolean) => change.mutate({ enabled, comment: comment.trim() || null });
  const enabled = state.data?.enabled;
  if (enabled === undefined) return null;
  return (
    <Flex direction="column" gap="2">
      <Flex align="center" gap="3">
        <Text id={labelId} weight="medium">
          Enforcement
        </Text>
        {isAdmin ? (
          <Switch
            aria-labelledby={labelId}
            checked={enabled}
            disabled={change.isPending}
            onCheckedChange={(checked) => setConfirming(checked)}
          />
        ) : null}
        <Badge color={enabled ? 'green' : 'red'}>
          {enabled ? 'on: policies refuse' : 'off: nothing is refused'}
        </Badge>
      </Flex>
      <ErrorCallout error={change.error} />
      <AlertDialog.Root
        open={confirming !== null}
        onOpenChange={(open) => {
          if (!open) setConfirming(null);
        }}
      >
        <AlertDialog.Content maxWidth="460px">
          <AlertDialog.Title>
            {confirming === true ? 'Turn enforcement on?' : 'Turn enforcement off?'}
          </AlertDialog.Title>
          <AlertDialog.Description size="2">
            {confirming === true
              ? 'Every instance decides every request again within a second: clients over a limit, or blocked, are refused from then on.'
              : 'Every instance lets every request through, undecided: nothing is counted, refused or blocked until it is turned on again, and the charts show no decisions meanwhile.'}
          </AlertDialog.Description>
          <Flex direction="column" gap="3" mt="3">
            <Field label="Change note">
              <TextField.Root
                value={comment}
                onChange={(event) => setComment(event.target.value)}
              />
            </Field>
          </Flex>
          <Flex gap="3" mt="4" justify="end">
            <AlertDialog.Cancel>
              <Button variant="soft" color="gray">
                {confirming === true ? 'Keep it off' : 'Keep it on'}
              </Button>
            </AlertDialog.Cancel>
            <Button
              color={confirming === true ? undefined : 'red'}
              loading={change.isPending}
              onClick={() => turn(confirming === true)}
            >
              {confirming === true ? 'Turn on' : 'Turn off'}
            </Button>
          </Flex>
        </AlertDialog.Content>
      </AlertDialog.Root>
    </Flex>
  );
}
