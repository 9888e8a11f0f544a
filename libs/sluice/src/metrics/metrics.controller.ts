import { Controller, Get, Header, Inject, type Type } from '@nestjs/common';
import { SkipThrottle } from '../metadata/throttle.decorator.js';
import { SluiceMetrics } from './sluice.metrics.js';

/** `GET <path>` in Prometheus' text format; one class per path, as the module asks for it. */
export function metricsController(path: string): Type<unknown> {
  @Controller(path)
  @SkipThrottle()
  class SluiceMetricsController {
    constructor(@Inject(SluiceMetrics) private readonly metrics: SluiceMetrics) {}

    @Get()
    @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
    @Header('Cache-Control', 'no-store')
    async scrape(): Promise<string> {
      return this.metrics.registry.metrics();
    }
  }
  return SluiceMetricsController;
}
