import { EventEmitterModule } from '@nestjs/event-emitter';
import { EventEmitter2 } from 'eventemitter2';
import { afterEach, describe, expect, it } from 'vitest';
import { PENALTY_STREAM } from '../config/sluice.tokens.js';
import { startMemoryApp, type MemoryApp } from '../testing/memory-app.fixture.js';
import { LocalPenaltyStream } from '../penalty/local-penalty.stream.js';
import { PenaltyEventPublisher } from './penalty-event.publisher.js';
import {
  parsePenaltyEvent,
  PENALTY_EVENT_TYPES,
  type PenaltyEvent,
} from '../penalty/penalty.event.js';
import { toIdentifier } from '../keys/identifier.js';

const started: MemoryApp[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.close()));
});

const BLOCK_MS = 60_000;
const LOGIN = {
  name: 'like',
  algorithm: 'fixed-window',
  limit: 2,
  periodMs: 10_000,
  key: 'header:x-user',
  penalty: { afterViolations: 1, blockMs: BLOCK_MS, escalation: 2, maxBlockMs: 4 * BLOCK_MS },
} as const;

async function start() {
  const app = await startMemoryApp([LOGIN], {}, { imports: [EventEmitterModule.forRoot()] });
  started.push(app);
  const heard: PenaltyEvent[] = [];
  const emitter = app.get(EventEmitter2);
  for (const type of PENALTY_EVENT_TYPES) {
    emitter.on(`sluice.${type}`, (event: PenaltyEvent) => heard.push(event));
  }
  const stream = app.get<LocalPenaltyStream>(PENALTY_STREAM);
  await stream.ensureGroup('spec');
  const publisher = app.get(PenaltyEventPublisher);
  const streamed = async () => {
    await publisher.flush();
    return (await stream.readNew('spec', 'reader', 100, 0)).flatMap(({ event }) =>
      event ? [event] : [],
    );
  };
  const like = (user: string) => fetch(`${app.url}/like`, { headers: { 'x-user': user } });
  return { ...app, heard, streamed, publisher, like };
}

describe('PenaltyEventPublisher on the in-memory stream', () => {
  it('announces the block a refusal sets off, in-process and on the stream, once', async () => {
    const { like, heard, streamed, publisher, clock } = await start();
    const statuses = [];
    for (let n = 0; n < 5; n++) statuses.push((await like('mallory')).status);
    expect(statuses).toEqual([200, 200, 429, 429, 429]);

    const events = await streamed();
    expect(publisher.pending).toBe(0);
    const nowMs = Math.floor(clock.now() / 1000);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'block.started',
        policy: 'like',
        identifier: 'mallory',
        offence: 1,
        expiresAt: nowMs + BLOCK_MS,
        trigger: { count: 1, limit: 2, windowMs: 10_000, algorithm: 'fixed-window' },
        actor: null,
        route: 'LikesController.like',
      }),
    ]);
    expect(heard).toEqual(events);
  });

  it('names an identifier it shows cut by its stored key, and no other', async () => {
    const { like, streamed } = await start();
    const token = 'eyJhbGciOiJIUzI1NiJ9.'.padEnd(400, 'x');
    for (const user of ['mallory', token]) {
      for (let n = 0; n < 3; n++) await like(user);
    }

    const events = await streamed();
    expect(events.map((event) => [event.identifier, event.key])).toEqual([
      ['mallory', undefined],
      [token.slice(0, 256), toIdentifier(token).stored],
    ]);
    expect(events.map((event) => parsePenaltyEvent(JSON.stringify(event)))).toEqual(events);
  });

  it('escalates the next block after the first has ended', async () => {
    const { like, streamed, clock } = await start();
    for (let n = 0; n < 3; n++) await like('mallory');
    clock.advance(BLOCK_MS * 1000 + 1);
    for (let n = 0; n < 3; n++) await like('mallory');
    const events = await streamed();
    expect(events.map(({ type, offence }) => `${type} ${offence}`)).toEqual([
      'block.started 1',
      'block.escalated 2',
    ]);
    const second = events[1]!;
    expect(second.expiresAt - (second.startedAt ?? 0)).toBe(2 * BLOCK_MS);
    expect(new Set(events.map(({ id }) => id)).size).toBe(2);
  });

  it('puts a block another instance set off on the stream only, under the same id', async () => {
    const first = await start();
    for (let n = 0; n < 3; n++) await first.like('mallory');
    const [original] = await first.streamed();
    // Replayed as a refusal that reports the block without having started it.
    const { publisher, heard, streamed } = await start();
    const refused = await first.engine.consume('like', 'mallory');
    publisher.blocksSeen(refused, [first.engine.policies.get('like')!], {
      keyKind: 'header:x-user',
      identifier: 'mallory',
      instanceId: 'another-instance',
      policyVersion: 0,
    });
    const [reported] = await streamed();
    expect(reported).toMatchObject({ type: 'block.started', id: original!.id });
    expect(heard).toEqual([]);
  });
});
