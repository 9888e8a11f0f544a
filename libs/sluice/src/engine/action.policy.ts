import { MAX_PERIOD_MS } from '../policy/policy.schema.js';
import type { PolicyInput } from '../policy/policy.types.js';

const ACTION_KEY = /^[A-Za-z0-9_-]{1,32}$/;
/** isActionAllowed counts in a sliding log, one entry per action. */
const MAX_ACTION_COUNT = 100_000;

/**
 * The policy behind isActionAllowed(userId, actionKey, periodSec, maxCount): at most maxCount
 * actions in any periodSec seconds, one per (action, period, count), named after all three.
 */
export function actionPolicy(
  actionKey: string,
  periodSec: number,
  maxCount: number,
): PolicyInput & { name: string } {
  if (!ACTION_KEY.test(actionKey)) {
    throw new RangeError(
      `actionKey: must be 1-32 letters, digits, '_' or '-', got ${JSON.stringify(actionKey)}`,
    );
  }
  const periodMs = Math.round(periodSec * 1000);
  if (!Number.isFinite(periodSec) || periodMs < 1 || periodMs > MAX_PERIOD_MS) {
    throw new RangeError(`periodSec: must be from 0.001 to 31536000 seconds, got ${periodSec}`);
  }
  if (!Number.isSafeInteger(maxCount) || maxCount < 1 || maxCount > MAX_ACTION_COUNT) {
    throw new RangeError(`maxCount: must be an integer from 1 to 100000, got ${maxCount}`);
  }
  return {
    name: `action.${actionKey}.${periodMs}.${maxCount}`,
    algorithm: 'sliding-log',
    limit: maxCount,
    periodMs,
    key: 'user',
  };
}
