// SluiceAdminModule options.penalties.webhooks: the schema each webhook must pass at start.
import { PENALTY_EVENT_TYPES, type PenaltyEventType } from '@sluice/nest/internals';
import { z } from 'zod';

const OPTION = 'SluiceAdminModule options.penalties.webhooks';
const MAX_WEBHOOKS = 20;

const URL_RULE =
  'must be an http:// or https:// URL of at most 2048 characters, without credentials';
const SECRET_RULE = 'must be a string of 16 to 512 characters';
const EVENTS_RULE = 'must be a non-empty array of event types';
const EVENT_RULE = `must be one of ${PENALTY_EVENT_TYPES.join(', ')}`;

/** fetch refuses a URL with credentials. */
function isWebhookUrl(url: string): boolean {
  if (url.length > 2048 || !/^https?:\/\//i.test(url) || !URL.canParse(url)) return false;
  const { username, password } = new URL(url);
  return username === '' && password === '';
}

const webhookSchema = z.strictObject(
  {
    url: z.string({ error: URL_RULE }).refine(isWebhookUrl, { error: URL_RULE }),
    secret: z
      .string({ error: SECRET_RULE })
      .min(16, { error: SECRET_RULE })
      .max(512, { error: SECRET_RULE }),
    events: z
      .array(z.enum(PENALTY_EVENT_TYPES, { error: EVENT_RULE }), { error: EVENTS_RULE })
      .min(1, { error: EVENTS_RULE })
      .refine((events) => new Set(events).size === events.length, {
        error: 'must not repeat an event type',
      })
      .optional(),
  },
  { error: 'must be an object { url, secret, events? }' },
);

const webhooksSchema = z
  .array(webhookSchema, { error: `must be an array of at most ${MAX_WEBHOOKS} webhooks` })
  .max(MAX_WEBHOOKS, { error: `must be an array of at most ${MAX_WEBHOOKS} webhooks` });

export interface ResolvedWebhook {
  url: URL;
  secret: string;
  events: ReadonlySet<PenaltyEventType>;
}

/** Validates `penalties.webhooks`; the error names every bad field, never a secret. */
export function resolveWebhooks(webhooks: unknown): ResolvedWebhook[] {
  if (webhooks === undefined) return [];
  const parsed = webhooksSchema.safeParse(webhooks);
  if (parsed.success) {
    return parsed.data.map(({ url, secret, events }) => ({
      url: new URL(url),
      secret,
      events: new Set(events ?? PENALTY_EVENT_TYPES),
    }));
  }
  const problems = parsed.error.issues.flatMap((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [''];
    return keys.map((key) => {
      const path = [OPTION, ...issue.path.map(String), ...(key ? [key] : [])];
      return `${path.join('.')}: ${key ? 'is not an option' : issue.message}`;
    });
  });
  throw new Error(problems.join('; '));
}
