import type { SluiceEngine } from '@sluice/nest/internals';

/**
 * `attempts` concurrent consumes under `policy` for each of `count` identifiers (user-0 …), all at
 * once: how many each identifier was admitted, in order. A Cluster spreads them over its masters.
 */
export async function admittedOfEach(
  engine: SluiceEngine,
  policy: string,
  count: number,
  attempts: number,
): Promise<number[]> {
  const identifiers = Array.from({ length: count }, (_, i) => `user-${i}`);
  const admitted = new Map<string, number>();
  await Promise.all(
    identifiers.flatMap((identifier) =>
      Array.from({ length: attempts }, async () => {
        const decision = await engine.consume(policy, identifier);
        if (decision.allowed) admitted.set(identifier, (admitted.get(identifier) ?? 0) + 1);
      }),
    ),
  );
  return identifiers.map((identifier) => admitted.get(identifier) ?? 0);
}
