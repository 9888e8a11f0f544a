import type { CandidateProposal, PolicyView, PolicyWriteRequest } from '@sluice/admin/api';
import { Badge, Flex, Grid, Heading, Link as ThemeLink, Text } from '@radix-ui/themes';
import { useCallback, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../../api/client';
import { useCan } from '../../shared/session.hooks';
import { formatTime } from '../../shared/format';
import { QueryState } from '../../shared/QueryState';
import { DeletePolicyButton } from './DeletePolicyButton';
import {
  NEW_POLICY,
  toFormValues,
  toReplayRule,
  toSimulatedPolicy,
  type PolicyFormValues,
} from './policy-form';
import { PolicyReplay } from './PolicyReplay';
import { PolicyForm } from './PolicyForm';
import { PolicySimulator } from './PolicySimulator';
import { PolicySummary } from './PolicySummary';
import { PolicyCandidate } from './PolicyCandidate';
import { PolicyTraffic } from './PolicyTraffic';
import { PolicyProfile } from './PolicyProfile';
import { PolicyListEntries } from './PolicyListEntries';
import { useCandidateActions, usePolicy, useSavePolicy } from './policies.hooks';

export function PolicyEditorPage() {
  const { name } = useParams<{ name: string }>();
  const policy = usePolicy(name);
  if (name === undefined) return <PolicyEditor policy={null} />;
  return <QueryState query={policy}>{(view) => <PolicyEditor policy={view} />}</QueryState>;
}

function PolicyEditor({ policy }: { policy: PolicyView | null }) {
  const navigate = useNavigate();
  const canEditOverrides = useCan('operator');
  const isAdmin = useCan('admin');
  const initial = useMemo(() => (policy === null ? NEW_POLICY : toFormValues(policy)), [policy]);
  const [values, setValues] = useState<PolicyFormValues>(initial);
  const onValuesChange = useCallback((current: PolicyFormValues) => setValues(current), []);
  const saveExisting = useSavePolicy(policy?.name ?? '');
  const candidateActions = useCandidateActions(policy?.name ?? '');
  const save = async (body: PolicyWriteRequest, confirmReset = false) => {
    if (policy !== null) return saveExisting.mutateAsync({ body, confirmReset });
    const created = await api.policies.put(body.name ?? '', body, confirmReset);
    await navigate(`/policies/${encodeURIComponent(created.name)}`);
    return created;
  };

  return (
    <Flex direction="column" gap="4">
      <Text size="2">
        <ThemeLink asChild>
          <Link to="/policies">← All policies</Link>
        </ThemeLink>
      </Text>
      <Flex justify="between" align="center" wrap="wrap" gap="3">
        <Flex direction="column" gap="1">
          <Heading as="h2" size="6">
            {policy === null ? 'New policy' : policy.name}
          </Heading>
          {policy !== null && (
            <Flex gap="2" align="center" wrap="wrap">
              <Badge>version {policy.version}</Badge>
              <Badge color={policy.source === 'code' ? 'gray' : 'indigo'}>
                {policy.source === 'code' ? 'as the code defines it' : 'edited'}
              </Badge>
              <Text size="1" color="gray">
                {policy.updatedBy === null
                  ? ''
                  : `changed by ${policy.updatedBy} on ${formatTime(policy.updatedAt)}`}
              </Text>
            </Flex>
          )}
        </Flex>
        {policy !== null && (
          <Flex gap="3" align="center">
            <ThemeLink asChild>
              <Link to="revisions">Revisions</Link>
            </ThemeLink>
            {isAdmin && <DeletePolicyButton policy={policy} />}
          </Flex>
        )}
      </Flex>
      <Grid columns={{ initial: '1', lg: '3fr 2fr' }} gap="4" align="start">
        {canEditOverrides && (policy !== null || isAdmin) ? (
          <PolicyForm
            initial={initial}
            version={policy?.version ?? 0}
            isNew={policy === null}
            canEditRules={isAdmin}
            save={save}
            {...(policy === null
              ? {}
              : {
                  propose: (body: CandidateProposal) => candidateActions.propose.mutateAsync(body),
                  hasCandidate: policy.candidate != null,
                })}
            onValuesChange={onValuesChange}
          />
        ) : policy !== null ? (
          <PolicySummary policy={policy} />
        ) : (
          <Text>Creating a policy needs the admin role.</Text>
        )}
        <Flex direction="column" gap="4">
          <PolicySimulator
            policy={(tier) => toSimulatedPolicy(canEditOverrides ? values : initial, tier)}
            tiers={(canEditOverrides ? values : initial).tiers
              .map((tier) => tier.name.trim())
              .filter((name) => name !== '')}
          />
          {policy !== null && policy.algorithm !== 'concurrency' && (
            <PolicyReplay
              name={policy.name}
              rule={() => toReplayRule(canEditOverrides ? values : initial)}
            />
          )}
        </Flex>
      </Grid>
      {policy?.candidate != null && <PolicyCandidate name={policy.name} />}
      {policy !== null && <PolicyListEntries name={policy.name} />}
      {policy !== null && (
        <PolicyTraffic
          name={policy.name}
          candidateSample={policy.candidate?.samplePercent ?? null}
          tiers={Object.keys(policy.tiers ?? {})}
        />
      )}
      {policy !== null && policy.algorithm !== 'concurrency' && <PolicyProfile policy={policy} />}
    </Flex>
  );
}
