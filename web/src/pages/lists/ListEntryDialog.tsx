import type { ListEntryRequest } from '@sluice/admin/api';
import { Button, Callout, Dialog, Flex, Text, TextField } from '@radix-ui/themes';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import { CheckboxLabel } from '../../shared/CheckboxLabel';
import { exactDurationText, parseDuration } from '../../shared/duration';
import { ErrorCallout } from '../../shared/ErrorCallout';
import { Field } from '../../shared/Field';
import { useCan } from '../../shared/session.hooks';
import { reachesEveryone, useAddListEntry } from './lists.hooks';
import { PolicyScopeField } from './PolicyScopeField';
import { DialogActions } from '../../shared/DialogActions';

type Kind = ListEntryRequest['kind'];

const VALUE_HINTS: Record<Kind, { placeholder: string; hint: string }> = {
  address: {
    placeholder: '203.0.113.0/24',
    hint: 'An IP address or a CIDR range; an IPv4 range also holds its IPv6-mapped form.',
  },
  userAgent: {
    placeholder: 'badbot|scrapy',
    hint: 'A regular expression (RE2: no lookaround), case-insensitive, found anywhere in the header.',
  },
  identifier: {
    placeholder: 'partner-',
    hint: 'As the policy counts it: an API key, a user id, an address.',
  },
};

const EMPTY = {
  list: 'deny' as ListEntryRequest['list'],
  kind: 'address' as Kind,
  value: '',
  keyKind: 'header:x-api-key',
  prefix: false,
  policies: null as string[] | null,
  mode: 'enforce' as NonNullable<ListEntryRequest['mode']>,
  reason: '',
  expiresAfter: '',
};

/** Adds an allow or deny list entry; every instance applies it within a second. */
export function ListEntryDialog({ onDone }: { onDone: (notice: string) => void }) {
  const add = useAddListEntry();
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState(EMPTY);
  const [expiryError, setExpiryError] = useState<string | undefined>();
  const [scopeError, setScopeError] = useState<string | undefined>();
  /** What the entry would reach beyond the usual, asked about before it is sent confirmed. */
  const [reach, setReach] = useState<string | undefined>();
  const isAdmin = useCan('admin');
  const set =
    <Name extends keyof typeof EMPTY>(name: Name) =>
    (value: (typeof EMPTY)[Name]) => {
      // The question was about the entry as it was: an edit asks again when it is sent.
      setReach(undefined);
      add.reset();
      setValues((current) => ({ ...current, [name]: value }));
    };
  const errors = add.error instanceof ApiError ? add.error.fieldErrors : {};
  // The server's word on the entry's reach (the writer's own address, say) asks the same question.
  const serverReach = errors.confirm;
  const asked = reach ?? serverReach;
  const send = (confirm: boolean) => (event?: FormEvent) => {
    event?.preventDefault();
    const after = values.expiresAfter.trim();
    const ms = after === '' ? null : parseDuration(after);
    if (ms === undefined || (ms !== null && ms <= 0)) {
      setExpiryError('must be a duration such as 30 min, 1 h or 7 d, or empty: never');
      return;
    }
    setExpiryError(undefined);
    if (values.policies?.length === 0) {
      setScopeError('tick at least one policy, or choose every policy');
      return;
    }
    setScopeError(undefined);
    const identifier = values.kind === 'identifier';
    const body: ListEntryRequest = {
      list: values.list,
      kind: values.kind,
      value: values.value.trim(),
      ...(identifier ? { keyKind: values.keyKind.trim(), prefix: values.prefix } : {}),
      policies: values.policies,
      mode: values.mode,
      reason: values.reason,
      expiresAt: ms === null ? null : new Date(Date.now() + ms).toISOString(),
    };
    const everyone = confirm ? undefined : reachesEveryone(body);
    if (everyone !== undefined) {
      setReach(everyone);
      return;
    }
    add.mutate(
      { body, confirm },
      {
        onSuccess: (entry) => {
          setOpen(false);
          setValues(EMPTY);
          setReach(undefined);
          onDone(
            `${entry.value} is on the ${entry.list} list${entry.mode === 'shadow' ? ', in shadow mode' : ''}${ms === null ? '' : ` for ${exactDurationText(ms)}`}; every instance applies it within a second.`,
          );
        },
      },
    );
  };
  const hints = VALUE_HINTS[values.kind];
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger>
        <Button variant="soft">Add an entry</Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="520px">
        <Dialog.Title>Add a list entry</Dialog.Title>
        <Dialog.Description size="2">
          A deny entry refuses matching requests before any Redis call; an allow entry lets them
          skip the policy. Shadow mode only counts what the entry would have done.
        </Dialog.Description>
        <form onSubmit={send(false)} noValidate>
          <Flex direction="column" gap="3" mt="3">
            <Flex gap="3" wrap="wrap">
              <Field label="Which list" error={errors.list}>
                <select
                  className="native-select"
                  value={values.list}
                  onChange={(event) => set('list')(event.target.value as typeof values.list)}
                >
                  <option value="deny">Deny: refuse</option>
                  <option value="allow">Allow: skip the policy</option>
                </select>
              </Field>
              <Field label="Match on" error={errors.kind}>
                <select
                  className="native-select"
                  value={values.kind}
                  onChange={(event) => set('kind')(event.target.value as Kind)}
                >
                  <option value="address">Client address or range</option>
                  <option value="userAgent">User-Agent pattern</option>
                  <option value="identifier">An identifier</option>
                </select>
              </Field>
            </Flex>
            <Field label="Value" error={errors.value} hint={hints.hint}>
              <TextField.Root
                value={values.value}
                placeholder={hints.placeholder}
                onChange={(event) => set('value')(event.target.value)}
              />
            </Field>
            {values.kind === 'identifier' && (
              <>
                <Field
                  label="Counted as"
                  error={errors.keyKind}
                  hint="The kind of identifier: ip, user, header:<name> or a tracker's name."
                >
                  <TextField.Root
                    value={values.keyKind}
                    onChange={(event) => set('keyKind')(event.target.value)}
                  />
                </Field>
                <CheckboxLabel
                  checked={values.prefix}
                  onChange={(event) => set('prefix')(event.target.checked)}
                >
                  Prefix: all that start with it
                </CheckboxLabel>
              </>
            )}
            <Flex gap="3" wrap="wrap">
              <Field label="Mode" error={errors.mode}>
                <select
                  className="native-select"
                  value={values.mode}
                  onChange={(event) => set('mode')(event.target.value as typeof values.mode)}
                >
                  <option value="enforce">Enforce</option>
                  <option value="shadow">Shadow: count only</option>
                </select>
              </Field>
            </Flex>
            <PolicyScopeField
              value={values.policies}
              onChange={set('policies')}
              error={scopeError ?? errors.policies ?? errors['policies.0']}
            />
            <Field label="Reason" error={errors.reason}>
              <TextField.Root
                value={values.reason}
                onChange={(event) => set('reason')(event.target.value)}
              />
            </Field>
            <Field
              label="Expires after"
              error={expiryError ?? errors.expiresAt}
              hint="Empty: it stays until removed."
            >
              <TextField.Root
                value={values.expiresAfter}
                placeholder="7 d"
                onChange={(event) => set('expiresAfter')(event.target.value)}
              />
            </Field>
            {asked === undefined ? (
              <ErrorCallout error={add.error} />
            ) : (
              <Callout.Root color="red" role="alert">
                <Callout.Text>
                  {asked}{' '}
                  {isAdmin ? 'Add it only if you mean it.' : 'Only an admin may add such an entry.'}
                </Callout.Text>
                {isAdmin && (
                  <Flex>
                    <Button type="button" color="red" onClick={() => send(true)()}>
                      Add it anyway
                    </Button>
                  </Flex>
                )}
              </Callout.Root>
            )}
            <Text size="1" color="gray">
              Recorded in the audit with your name.
            </Text>
            <DialogActions label="Add" pending={add.isPending} />
          </Flex>
        </form>
      </Dialog.Content>
    </Dialog.Root>
  );
}
