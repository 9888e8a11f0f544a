/**
 * A problem with the app's setup found at start: a missing or unsupported package, a Redis
 * server that lacks what Sluice needs. Its stack is its one line, because a trace through
 * node_modules would say nothing more than the message, which names the cause and the fix.
 */
export class SluiceStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SluiceStartError';
    this.stack = `${this.name}: ${message}`;
  }
}
