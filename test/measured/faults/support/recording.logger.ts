import type { LoggerService } from '@nestjs/common';

/** Keeps what an app logs, as `<level> <message>` lines, instead of printing it. */
export class RecordingLogger implements LoggerService {
  readonly lines: string[] = [];

  log(message: unknown): void {
    this.record('log', message);
  }

  error(message: unknown): void {
    this.record('error', message);
  }

  warn(message: unknown): void {
    this.record('warn', message);
  }

  debug(message: unknown): void {
    this.record('debug', message);
  }

  verbose(message: unknown): void {
    this.record('verbose', message);
  }

  fatal(message: unknown): void {
    this.record('fatal', message);
  }

  private record(level: string, message: unknown): void {
    this.lines.push(`${level} ${String(message)}`);
  }
}
