/** docs/reliability.md's section on Redis restarts: one row per scenario measured. */
export function restartReport(lines: readonly string[], timeoutMs: number, downMs: number): string {
  return `## Redis killed and restarted empty

| fault | observed | counted twice |
| ----- | -------- | ------------- |
${lines.join('\n')}

Method (\`test/measured/faults/redis-restart.spec.ts\`, run with
\`npx vitest run test/measured/faults/redis-restart.spec.ts\`): the test starts its own
redis-server. An Express and a Fastify instance on it (\`timeoutMs\` ${timeoutMs}) take one
client loop per route (\`/allow\`, \`/deny\`, \`/local\`, each with the \`onStoreError\` of its
name), each sending a request, reading the answer and pausing 5 ms. After 1 s the server is killed
with SIGKILL and started again ${downMs / 1000} s later on the same port, with nothing persisted. The counts compare each route's count in Redis, read with \`peek\`, with the admissions Redis
answered since the restart (\`/allow\` and \`/deny\`; \`/local\` cannot be told apart from its
local fallback right after the restart, which also emptied the heartbeats, so each instance briefly
counts itself alone); no admission Redis answered after the restart went uncounted. Requests from
before the crash count 0 since (the server kept nothing, as configured), and so do those of the
outage: none ran late. The second
row starts a Fastify instance while the server is down, then starts the server and writes the
policy snapshot (\`<prefix>:policies\`, \`<prefix>:policies:version\`) and its notice.`;
}
