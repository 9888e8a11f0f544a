import { isPlainIdentifier } from '@sluice/nest/internals';
import { z } from 'zod';
import type { SignInRequest } from '../common/admin-api.types.js';
import { parseRequest } from '../common/invalid-request.exception.js';
import { MAX_TOKEN_LENGTH } from './credentials.parser.js';

const NAME_RULE =
  'must be a string of 1 to 64 characters of well-formed Unicode, without control characters';
const PASSWORD_RULE = `must be a string of 1 to ${MAX_TOKEN_LENGTH} characters`;

export const signInBodySchema = z.object(
  {
    name: z
      .string({ error: NAME_RULE })
      .max(64, { error: NAME_RULE })
      .refine(isPlainIdentifier, { error: NAME_RULE }),
    password: z
      .string({ error: PASSWORD_RULE })
      .min(1, { error: PASSWORD_RULE })
      .max(MAX_TOKEN_LENGTH, { error: PASSWORD_RULE }),
  },
  { error: 'must be a JSON object {name, password}' },
) satisfies z.ZodType<SignInRequest>;

export type SignInBody = SignInRequest;

/** The sign-in body, or a 400 naming each bad field (the password's value is never echoed). */
export function parseSignInBody(body: unknown): SignInBody {
  return parseRequest(signInBodySchema, body);
}
