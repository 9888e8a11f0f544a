/** One run of the load generator, as the harness asks for it. */
export interface LoadRequest {
  url: string;
  path: string;
  connections: number;
  /** Run this long, seconds, … */
  durationS?: number;
  /** … or send exactly this many requests. */
  amount?: number;
  /**
   * Requests per second, sent at an even pace (bench/load/paced.load.ts), each timed from when
   * it was due; absent: autocannon, as fast as the server answers.
   */
  rate?: number;
  /** Each request names the next of `count` users in this header: `<prefix><i>`, cycling. */
  users?: { header: string; prefix: string; count: number; first?: number };
}

export interface LoadResult {
  /** Responses received. */
  requests: number;
  seconds: number;
  perSecond: number;
  /** ms */
  p50: number;
  p99: number;
  max: number;
  byStatus: Record<string, number>;
  errors: number;
  timeouts: number;
}
