import { BadRequestException, type PipeTransform } from '@nestjs/common';
import { z } from 'zod';

/** Validates a request body, answering 400 with one "field: problem" line per bad field. */
export class ZodBodyPipe<Schema extends z.ZodType> implements PipeTransform<
  unknown,
  z.output<Schema>
> {
  constructor(private readonly schema: Schema) {}

  transform(body: unknown): z.output<Schema> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new BadRequestException('body must be a JSON object');
    }
    const parsed = this.schema.safeParse(body);
    if (parsed.success) return parsed.data;
    // A value of the wrong type can fail several checks with the same message: say it once.
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`,
    );
    throw new BadRequestException([...new Set(problems)]);
  }
}

/** A string of min to max characters (after trimming), with a message that says so. */
export function text(min: number, max: number) {
  const message = `must be a string of ${min} to ${max} characters`;
  return z
    .string({ error: message })
    .trim()
    .min(min, { error: message })
    .max(max, { error: message });
}
