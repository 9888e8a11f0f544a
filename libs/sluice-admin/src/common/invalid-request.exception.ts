import { BadRequestException } from '@nestjs/common';
import type { z } from 'zod';

/** One thing wrong with a request, naming its field. */
export interface FieldIssue {
  /** A dotted path into the request: `limit`, `penalty.blockMs`, `overrides.0.limit`. */
  field: string;
  /** What is wrong with it. */
  message: string;
}

/** 400 `{ statusCode, error, message: "<field>: <why>; …", issues }`. */
export class InvalidRequestException extends BadRequestException {
  constructor(readonly issues: FieldIssue[]) {
    super({
      statusCode: 400,
      error: 'Bad Request',
      message: issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '),
      issues,
    });
  }
}

/** zod's issues, one per field; each unknown key is named on its own. */
export function fieldIssues(error: z.ZodError, root = '(body)'): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: path ? `${path}.${key}` : key,
        message: 'is not a known field',
      }));
    }
    return [{ field: path || root, message: issue.message }];
  });
}

/** Parses with `schema`, or throws a 400 naming each bad field. */
export function parseRequest<T extends z.ZodType>(
  schema: T,
  input: unknown,
  root?: string,
): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new InvalidRequestException(fieldIssues(parsed.error, root));
  return parsed.data;
}
