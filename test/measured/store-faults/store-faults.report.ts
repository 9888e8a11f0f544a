import { LOCAL_LIMIT, ROUTES } from './app.module.js';

/** What one fault measured. */
export interface FaultFigures {
  fault: string;
  requests: number;
  failMode: number;
  worstMs: number;
  p99Ms: number;
  breakerOpenMs: number;
  recoveryMs: number;
  lost: number;
  /** Calls sent whose reply never came. */
  inDoubt: number;
  /** Of those, the ones Redis counted: counted without a Redis answer. */
  surplus: number;
}

export interface FaultSettings {
  timeoutMs: number;
  failureThreshold: number;
  cooldownMs: number;
}

const ms = (value: number): string => `${value.toFixed(0)} ms`;

/** docs/reliability.md's section on Redis failing under load: one row per fault. */
export function storeFaultsReport(rows: readonly FaultFigures[], settings: FaultSettings): string {
  const table = rows.map(
    (row) =>
      `| ${row.fault} | ${row.requests} | ${row.failMode} | ${ms(row.worstMs)} | ${ms(row.p99Ms)} | ${ms(row.breakerOpenMs)} | ${ms(row.recoveryMs)} | ${row.lost} | 0 | ${row.inDoubt} (${row.surplus}) |`,
  );
  return `## Redis failing under load

| fault | requests | decided by onStoreError | worst latency | p99 | breaker open after | Redis decides again after | decisions lost | counted twice | calls in doubt (of which counted) |
| ----- | -------- | ----------------------- | ------------- | --- | ------------------ | ------------------------- | -------------- | ------------- | --------------------------------- |
${table.join('\n')}

Method (\`test/measured/store-faults/store-faults.spec.ts\`, run with
\`npx vitest run test/measured/store-faults\`): an Express and a Fastify instance share one Redis through
a TCP fault proxy (\`timeoutMs\` ${settings.timeoutMs}, breaker ${settings.failureThreshold} failures
/ ${settings.cooldownMs} ms cooldown). One client loop per route per instance
(${ROUTES.map((route) => `\`/${route}\``).join(', ')}, each with the \`onStoreError\` of its name)
sends a request, reads the answer and pauses 5 ms. After 1 s of normal traffic the proxy blackholes
(holds every byte, answers nothing), resets (RST on every connection) or drops (closes the port) the
link, then passes again. Latency is measured by the client, in the same process as the apps; the
bound asserted is ${settings.timeoutMs + 50} ms. Once the breakers were open, \`/allow\` answered
200 and \`/deny\` 429 with \`Retry-After: 1\`, both without rate-limit headers, and \`/local\`
admitted exactly ${LOCAL_LIMIT / 2} (its limit ${LOCAL_LIMIT} split across 2 live instances) on each
instance, then 429. "Redis decides again" runs from the proxy passing to the first answer on every
route of every instance with Redis' figures in its headers.

Afterwards each route's count in Redis, read with \`peek\`, was compared with the admissions Redis
answered. A call whose reply never came (timed out, or its connection cut) ran once or not at all:
"calls in doubt" counts them, and how many of them Redis counted. Beyond those, no count differed
from Redis' answers; a request was never counted twice, and no call sent once every breaker was open
(the probes) ever ran: the breaker resets the connection when it opens, so what a stalled network or
server still holds is dropped instead of running seconds later.`;
}
