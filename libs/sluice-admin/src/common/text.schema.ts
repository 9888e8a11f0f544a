import { z } from 'zod';

// eslint-disable-next-line no-control-regex
const NUL = /\u0000/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * Free text the admin stores as given (comments, reasons): at most `max` characters, and no NUL,
 * which PostgreSQL's text columns cannot hold (it would fail the write with a 500). Line breaks
 * and tabs stay: a reason may span lines. One rule for every such field (docs/security.md).
 */
export function freeText(max: number) {
  const rule = `must be text of at most ${max} characters, without NUL`;
  return z
    .string({ error: rule })
    .max(max, { error: rule })
    .refine((value) => !NUL.test(value), { error: rule });
}

/**
 * A search or filter term from a query string: 1 to `max` characters, given once, no control
 * characters at all.
 */
export function searchText(max: number) {
  const rule = `must be given once, as 1 to ${max} characters without control characters`;
  return z
    .string({ error: rule })
    .min(1, { error: rule })
    .max(max, { error: rule })
    .refine((value) => !CONTROL.test(value), { error: rule });
}
