import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import type { PenaltyEvent } from '@sluice/nest/internals';
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SluiceAdminModuleOptions } from '../config/sluice-admin-options.interface.js';
import { ADMIN_OPTIONS } from '../config/sluice-admin.tokens.js';
import { resolveWebhooks, type ResolvedWebhook } from './webhook-options.schema.js';
import {
  DEFAULT_TIMING,
  realRetryTimer,
  WEBHOOK_TIMING,
  type WebhookTiming,
} from './webhook.timing.js';

const MAX_WAITING = 10_000;
const CONCURRENCY = 4;
const REQUEST_TIMEOUT_MS = 5_000;
const SHUTDOWN_GRACE_MS = 2_000;
const DROP_LOG_EVERY_MS = 10_000;

interface Target {
  readonly hook: ResolvedWebhook;
  /** Deliveries due now, oldest first. */
  readonly ready: Set<Delivery>;
  active: number;
}

interface Delivery {
  readonly target: Target;
  readonly event: PenaltyEvent;
  readonly body: string;
  readonly signature: string;
  failures: number;
  cancelRetry?: () => void;
}

/**
 * Posts each recorded penalty event to the webhooks that want it, off the request path: `send`
 * only queues. Failed deliveries are retried with exponential backoff, then dropped with an error.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationShutdown {
  private readonly logger = new Logger('SluiceAdmin');
  private readonly targets: Target[];
  /** Deliveries not on the wire (due, or awaiting a retry), oldest first. */
  private readonly waiting = new Set<Delivery>();
  private readonly inFlight = new Set<Promise<void>>();
  private dropped = 0;
  private lastDropLog = 0;
  private dropLog: NodeJS.Timeout | undefined;
  private readonly shutdown = new AbortController();
  private stopped = false;
  private pumpPending = false;

  constructor(
    @Inject(ADMIN_OPTIONS) options: SluiceAdminModuleOptions,
    @Optional() @Inject(WEBHOOK_TIMING) private readonly timing: WebhookTiming = DEFAULT_TIMING,
  ) {
    this.targets = resolveWebhooks(options.penalties?.webhooks).map((hook) => ({
      hook,
      ready: new Set(),
      active: 0,
    }));
  }

  send(event: PenaltyEvent): void {
    if (this.stopped) return;
    const body = JSON.stringify(event);
    for (const target of this.targets) {
      if (!target.hook.events.has(event.type)) continue;
      const signature = createHmac('sha256', target.hook.secret).update(body).digest('hex');
      const delivery: Delivery = { target, event, body, signature, failures: 0 };
      this.waiting.add(delivery);
      target.ready.add(delivery);
      this.trim();
    }
    // Even building a request takes milliseconds: the caller's turn of the event loop is not delayed.
    if (this.pumpPending) return;
    this.pumpPending = true;
    setImmediate(() => {
      this.pumpPending = false;
      for (const target of this.targets) this.pump(target);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const delivery of this.waiting) this.discard(delivery);
    if (this.inFlight.size > 0) {
      await Promise.race([
        Promise.allSettled(this.inFlight),
        sleep(SHUTDOWN_GRACE_MS, undefined, { ref: false }),
      ]);
    }
    this.shutdown.abort();
  }

  private pump(target: Target): void {
    for (const delivery of target.ready) {
      if (target.active >= CONCURRENCY) return;
      target.ready.delete(delivery);
      this.waiting.delete(delivery);
      target.active++;
      const attempt = this.attempt(delivery).finally(() => this.inFlight.delete(attempt));
      this.inFlight.add(attempt);
    }
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const delivered = await this.post(delivery);
    delivery.target.active--;
    if (!delivered && !this.stopped) this.retryOrDrop(delivery);
    this.pump(delivery.target);
  }

  private async post({ target, event, body, signature }: Delivery): Promise<boolean> {
    try {
      const response = await fetch(target.hook.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Sluice-Event': event.type,
          'Sluice-Delivery': event.id,
          'Sluice-Signature': `sha256=${signature}`,
        },
        body,
        // A followed 301/302/303 would turn the POST into a GET and pass for a delivery.
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(REQUEST_TIMEOUT_MS), this.shutdown.signal]),
      });
      await response.body?.cancel().catch(() => undefined);
      return response.ok;
    } catch {
      return false;
    }
  }

  private retryOrDrop(delivery: Delivery): void {
    const { target, event } = delivery;
    delivery.failures++;
    if (delivery.failures >= this.timing.attempts) {
      const { origin, pathname } = target.hook.url;
      this.logger.error(
        `Webhook ${origin}${pathname} failed ${delivery.failures} times; dropped ${event.type} event ${event.id}`,
      );
      return;
    }
    const { firstRetryMs, maxRetryMs } = this.timing;
    const delay = Math.min(firstRetryMs * 2 ** (delivery.failures - 1), maxRetryMs);
    const retryTimer = this.timing.retryTimer ?? realRetryTimer;
    delivery.cancelRetry = retryTimer(() => {
      delivery.cancelRetry = undefined;
      if (this.stopped || !this.waiting.has(delivery)) return;
      target.ready.add(delivery);
      this.pump(target);
    }, delay);
    this.waiting.add(delivery);
    this.trim();
  }

  /** Keeps at most MAX_WAITING deliveries waiting, dropping the oldest. */
  private trim(): void {
    for (const oldest of this.waiting) {
      if (this.waiting.size <= MAX_WAITING) break;
      this.discard(oldest);
      this.dropped++;
    }
    if (this.dropped === 0 || this.dropLog) return;
    // One message per DROP_LOG_EVERY_MS, written when it ends, counting every drop since the
    // last: a burst is summed in one line, and its last drops are never left unreported.
    const wait = Math.max(0, this.lastDropLog + DROP_LOG_EVERY_MS - Date.now());
    this.dropLog = setTimeout(() => {
      this.logger.warn(
        `Dropped ${this.dropped} webhook deliveries: more than ${MAX_WAITING} were waiting`,
      );
      this.dropped = 0;
      this.lastDropLog = Date.now();
      this.dropLog = undefined;
    }, wait).unref();
  }

  private discard(delivery: Delivery): void {
    this.waiting.delete(delivery);
    delivery.target.ready.delete(delivery);
    delivery.cancelRetry?.();
    delivery.cancelRetry = undefined;
  }
}
