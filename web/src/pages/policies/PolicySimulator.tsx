import {
  Box,
  Button,
  Callout,
  Card,
  DataList,
  Flex,
  Heading,
  Text,
  TextField,
} from '@radix-ui/themes';
import {
  simulatePolicy,
  type RequestPattern,
  type SimulatedPolicy,
  type SimulationResult,
} from '@sluice/nest/simulator';
import { useState, type FormEvent } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { Field } from '../../shared/Field';

type PatternKind = RequestPattern['kind'];

const PATTERNS: Record<PatternKind, string> = {
  steady: 'Steady rate',
  burst: 'Burst',
  boundary: 'Boundary 0.8 s – 1.2 s',
};

interface PolicySimulatorProps {
  /** The editor's current values at a tier (none: the policy's own rate), or why they cannot be simulated. */
  policy: (tier?: string) => SimulatedPolicy | string;
  /** The tiers the editor names, each simulated at its own rate. */
  tiers: readonly string[];
}

/** Plays a request pattern against the edited policy, in the browser, before it is saved. */
export function PolicySimulator({ policy: policyAt, tiers }: PolicySimulatorProps) {
  const [tier, setTier] = useState('');
  const [kind, setKind] = useState<PatternKind>('burst');
  const [count, setCount] = useState('20');
  const [rate, setRate] = useState('10');
  const [seconds, setSeconds] = useState('10');
  const [result, setResult] = useState<SimulationResult | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const simulate = (event: FormEvent) => {
    event.preventDefault();
    const policy = policyAt(tiers.includes(tier) ? tier : undefined);
    if (typeof policy === 'string') {
      setProblem(policy);
      return;
    }
    const pattern = patternOf(kind, { count, rate, seconds });
    if (typeof pattern === 'string') {
      setProblem(pattern);
      return;
    }
    setProblem(null);
    setResult(simulatePolicy(policy, pattern));
  };

  return (
    <Card>
      <form onSubmit={simulate} aria-label="Simulator" noValidate>
        <Flex direction="column" gap="3">
          <Heading as="h3" size="3">
            Simulator
          </Heading>
          <Text size="2" color="gray">
            One client's requests against the policy as edited, decided by the same TypeScript
            algorithms the library runs; nothing is sent.
          </Text>
          <div className="field-grid">
            {tiers.length > 0 && (
              <Field label="At the rate of">
                <select
                  className="native-select"
                  value={tiers.includes(tier) ? tier : ''}
                  onChange={(event) => setTier(event.target.value)}
                >
                  <option value="">the policy (no tier)</option>
                  {tiers.map((name) => (
                    <option key={name} value={name}>
                      tier {name}
                    </option>
                  ))}
                </select>
              </Field>
            )}
            <Field label="Pattern">
              <select
                className="native-select"
                value={kind}
                onChange={(event) => setKind(event.target.value as PatternKind)}
              >
                {Object.entries(PATTERNS).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </Field>
            {kind === 'burst' && (
              <Field label="Requests">
                <TextField.Root
                  inputMode="numeric"
                  value={count}
                  onChange={(event) => setCount(event.target.value)}
                />
              </Field>
            )}
            {kind === 'steady' && (
              <>
                <Field label="Rate per second">
                  <TextField.Root
                    inputMode="decimal"
                    value={rate}
                    onChange={(event) => setRate(event.target.value)}
                  />
                </Field>
                <Field label="Duration (s)">
                  <TextField.Root
                    inputMode="decimal"
                    value={seconds}
                    onChange={(event) => setSeconds(event.target.value)}
                  />
                </Field>
              </>
            )}
          </div>
          {kind === 'boundary' && (
            <Text size="2" color="gray">
              The limit&apos;s worth of requests at 0.8 of a window, and as many again at 1.2
              windows.
            </Text>
          )}
          <Flex>
            <Button type="submit" variant="soft">
              Simulate
            </Button>
          </Flex>
          {problem !== null && (
            <Callout.Root color="amber" role="alert">
              <Callout.Text>{problem}</Callout.Text>
            </Callout.Root>
          )}
          {result !== null && <SimulationSummary result={result} />}
        </Flex>
      </form>
    </Card>
  );
}

function patternOf(
  kind: PatternKind,
  input: { count: string; rate: string; seconds: string },
): RequestPattern | string {
  if (kind === 'boundary') return { kind };
  if (kind === 'burst') {
    const count = Number(input.count);
    if (!Number.isInteger(count) || count < 1)
      return 'Requests must be a whole number of at least 1';
    return { kind, count };
  }
  const ratePerSecond = Number(input.rate);
  const seconds = Number(input.seconds);
  if (!(ratePerSecond > 0)) return 'Rate per second must be a number above 0';
  if (!(seconds > 0)) return 'Duration must be a number of seconds above 0';
  return { kind, ratePerSecond, durationMs: seconds * 1000 };
}

function SimulationSummary({ result }: { result: SimulationResult }) {
  const data = result.buckets.map((bucket) => ({
    ...bucket,
    at: `${(bucket.fromMs / 1000).toFixed(2)} s`,
  }));
  return (
    <Flex direction="column" gap="3">
      <DataList.Root orientation="horizontal" aria-label="Simulation result">
        <DataList.Item>
          <DataList.Label>Requests</DataList.Label>
          <DataList.Value>{result.requests.length}</DataList.Value>
        </DataList.Item>
        <DataList.Item>
          <DataList.Label>Admitted</DataList.Label>
          <DataList.Value>
            <span data-testid="simulated-admitted">{result.admitted}</span>
          </DataList.Value>
        </DataList.Item>
        <DataList.Item>
          <DataList.Label>Rejected</DataList.Label>
          <DataList.Value>
            <span data-testid="simulated-rejected">{result.rejected}</span>
          </DataList.Value>
        </DataList.Item>
        <DataList.Item>
          <DataList.Label>Delayed</DataList.Label>
          <DataList.Value>{result.delayed}</DataList.Value>
        </DataList.Item>
        {result.shadowRejected > 0 && (
          <DataList.Item>
            <DataList.Label>Shadow-rejected (let through)</DataList.Label>
            <DataList.Value>{result.shadowRejected}</DataList.Value>
          </DataList.Item>
        )}
      </DataList.Root>
      <Box
        role="img"
        aria-label={`Chart: ${result.admitted} admitted and ${result.rejected} rejected over time`}
      >
        <ResponsiveContainer width="100%" height={220}>
          <BarChart data={data}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="at" />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            <Bar
              dataKey="admitted"
              name="admitted"
              stackId="a"
              fill="var(--green-9)"
              isAnimationActive={false}
            />
            <Bar
              dataKey="rejected"
              name="rejected"
              stackId="a"
              fill="var(--red-9)"
              isAnimationActive={false}
            />
          </BarChart>
        </ResponsiveContainer>
      </Box>
    </Flex>
  );
}
