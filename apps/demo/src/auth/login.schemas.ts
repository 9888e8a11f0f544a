import { z } from 'zod';
import { USER_NAME, USER_NAME_RULE } from '../common/x-user.middleware.js';

export const LoginSchema = z.object({
  username: z.string({ error: `must be ${USER_NAME_RULE}` }).regex(USER_NAME, {
    error: `must be ${USER_NAME_RULE}`,
  }),
  password: z
    .string({ error: 'must be a string of 1 to 256 characters' })
    .min(1, { error: 'must be a string of 1 to 256 characters' })
    .max(256, { error: 'must be a string of 1 to 256 characters' }),
});
export type LoginInput = z.output<typeof LoginSchema>;
