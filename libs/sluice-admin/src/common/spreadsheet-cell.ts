/**
 * Characters that make a spreadsheet read a cell as a formula (or, for tab and CR, shift it into
 * one) when they come first. Identifiers reach exports from any client (a header-keyed policy
 * counts whatever the header holds), and block reasons from operators.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell as a spreadsheet will show it, never run it: one that would start a formula gets
 * a leading apostrophe, the neutralisation OWASP describes for CSV injection
 * (docs/security.md). csv-stringify then quotes it as any other cell.
 */
export function spreadsheetText(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}
