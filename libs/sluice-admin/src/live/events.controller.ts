import {
  Inject,
  Req,
  Sse,
  UseGuards,
  type MessageEvent,
  type OnModuleDestroy,
} from '@nestjs/common';
import {
  catchError,
  concatMap,
  filter,
  from,
  map,
  merge,
  of,
  Subject,
  takeUntil,
  timer,
  finalize,
  type Observable,
} from 'rxjs';
import type { Socket } from 'node:net';
import type { AdminEventMap } from '../common/admin-api.types.js';
import { InstancesService } from '../instances/instances.service.js';
import { AdminAuthGuard } from '../auth/admin-auth.guard.js';
import { AuthService } from '../auth/auth.service.js';
import { RequireRole } from '../auth/require-role.decorator.js';
import { StatsService } from './stats.service.js';
import { AdminController } from '../common/admin-controller.decorator.js';

const INSTANCES_EVERY_MS = 2_000;
const STATS_POLL_MS = 500;
/** How soon a stream ends after its session did (sign-out or expiry). */
const SESSION_CHECK_MS = 1_000;

function event<K extends keyof AdminEventMap>(type: K, data: AdminEventMap[K]): MessageEvent {
  return { type, data };
}

/** A failed read is told to the panel and the stream goes on; the next tick may succeed. */
function orUnavailable(error: unknown): Observable<MessageEvent> {
  return of(event('unavailable', { message: (error as Error).message }));
}

/** The connection under an Express request or a Fastify one. */
function socketOf(request: object): Socket | undefined {
  const raw = (request as { raw?: { socket?: Socket } }).raw ?? request;
  return (raw as { socket?: Socket }).socket;
}

/**
 * GET /events: Server-Sent Events for the panel. `stats` carries each second's counts once it
 * has settled (about 1.5 s after it began), `instances` the heartbeats every two seconds.
 */
@AdminController('events')
@UseGuards(AdminAuthGuard)
export class EventsController implements OnModuleDestroy {
  /** Fires when the app closes: an open stream would keep the HTTP server from closing. */
  private readonly closing = new Subject<void>();
  /** The connections of open streams, closed once their stream has ended at shutdown. */
  private readonly sockets = new Set<Socket>();

  constructor(
    @Inject(StatsService) private readonly stats: StatsService,
    @Inject(InstancesService) private readonly instances: InstancesService,
    @Inject(AuthService) private readonly auth: AuthService,
  ) {}

  @Sse()
  @RequireRole('viewer')
  stream(@Req() request: object): Observable<MessageEvent> {
    // Polled twice a second for the seconds settled since the last one sent, so none is skipped
    // whatever the timers' drift, and each arrives within half a second of settling.
    let lastSent: number | null = null;
    const seconds = timer(0, STATS_POLL_MS).pipe(
      concatMap(() =>
        from(this.stats.settledSince(lastSent)).pipe(
          concatMap((points) => {
            const newest = points.at(-1);
            if (newest !== undefined) lastSent = Date.parse(newest.at);
            return from(points.map((point) => event('stats', point)));
          }),
          catchError(orUnavailable),
        ),
      ),
    );
    const heartbeats = timer(0, INSTANCES_EVERY_MS).pipe(
      concatMap(() =>
        from(this.instances.list()).pipe(
          map((list) => event('instances', list)),
          catchError(orUnavailable),
        ),
      ),
    );
    // A stream opened with a session lasts no longer than it: signing out or expiry ends it.
    const signedOut = timer(SESSION_CHECK_MS, SESSION_CHECK_MS).pipe(
      concatMap(() => from(this.auth.stillSignedIn(request).catch(() => true))),
      filter((signedIn) => !signedIn),
    );
    const socket = socketOf(request);
    if (socket !== undefined) this.sockets.add(socket);
    return merge(seconds, heartbeats).pipe(
      takeUntil(merge(signedOut, this.closing)),
      finalize(() => {
        if (socket !== undefined) this.sockets.delete(socket);
      }),
    );
  }

  /**
   * Ends every open stream before Nest closes the HTTP server (docs/operations.md, stopping), and
   * then its connection: a client keeps a connection alive after a response, and the server
   * would wait for it to time out.
   */
  onModuleDestroy(): void {
    const sockets = [...this.sockets];
    this.closing.next();
    this.closing.complete();
    setImmediate(() => {
      for (const socket of sockets) socket.end();
    });
  }
}
