import { describe, expect, it } from 'vitest';
import { roleSatisfies } from './admin-role.js';

describe('roleSatisfies', () => {
  it('orders viewer < operator < admin', () => {
    expect(roleSatisfies('viewer', 'viewer')).toBe(true);
    expect(roleSatisfies('viewer', 'operator')).toBe(false);
    expect(roleSatisfies('operator', 'viewer')).toBe(true);
    expect(roleSatisfies('operator', 'admin')).toBe(false);
    expect(roleSatisfies('admin', 'operator')).toBe(true);
    expect(roleSatisfies('admin', 'admin')).toBe(true);
  });
});
