import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../policy/policy.schema.js';
import { reportUsage, settlement, usedUnits } from './usage.settlement.js';

const tokens = parsePolicy({
  name: 'tokens',
  algorithm: 'fixed-window',
  limit: 1_000,
  calendar: { unit: 'month' },
  cost: 10,
  usage: { header: 'x-usage-tokens', maxCost: 600 },
});
const kept = parsePolicy({ ...tokens, usage: { ...tokens.usage, onFailure: 'keep' } });
const response = (headers: Record<string, unknown>) => ({
  getHeader: (name: string) => headers[name],
});

describe('a charge settled after the response', () => {
  it('charges what was used beyond the reservation, capped at maxCost, or gives the rest back', () => {
    expect(settlement(tokens, 'answered', 250)).toBe(240);
    expect(settlement(tokens, 'answered', 4)).toBe(-6);
    expect(settlement(tokens, 'answered', 5_000)).toBe(590);
    // Nothing said: the reservation stands.
    expect(settlement(tokens, 'answered', undefined)).toBe(0);
  });

  it('refunds a failed request unless the policy keeps the reservation', () => {
    expect(settlement(tokens, 'failed', 250)).toBe(-10);
    expect(settlement(kept, 'failed', 250)).toBe(0);
  });

  it('charges a request whose client left what it reported, at least its reservation', () => {
    expect(settlement(tokens, 'left', 250)).toBe(240);
    expect(settlement(kept, 'left', 250)).toBe(240);
    expect(settlement(tokens, 'left', 5_000)).toBe(590);
    // Less than reserved, or nothing reported: the reservation stands, never refunded.
    expect(settlement(tokens, 'left', 4)).toBe(0);
    expect(settlement(tokens, 'left', undefined)).toBe(0);
  });

  it("takes the handler's report over the app's function, and that over the header", () => {
    const request = {};
    const res = response({ 'x-usage-tokens': '70' });
    expect(usedUnits(tokens, request, res)).toBe(70);
    expect(usedUnits(tokens, request, res, () => 80)).toBe(80);
    reportUsage(request, 90);
    expect(usedUnits(tokens, request, res, () => 80)).toBe(90);
  });

  it('reads no units from a header that is not a whole count', () => {
    for (const value of ['-3', '2.5', 'lots', undefined]) {
      expect(usedUnits(tokens, {}, response({ 'x-usage-tokens': value }))).toBeUndefined();
    }
    expect(usedUnits(tokens, {}, response({ 'x-usage-tokens': ['12', '13'] }))).toBe(12);
  });

  it('refuses a report that is not a whole count, naming it', () => {
    expect(() => reportUsage({}, -1)).toThrow(/units: must be an integer/);
    expect(() => reportUsage({}, 1.5)).toThrow(/units/);
    expect(() => reportUsage('request', 1)).toThrow(/request/);
  });
});
