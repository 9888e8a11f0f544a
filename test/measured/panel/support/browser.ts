/// <reference lib="dom" />
// Debian's Chromium driven by playwright-core: the browser .ci/run installs, no download.
import { AxeBuilder } from '@axe-core/playwright';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** Every screen's screenshot, kept with the test output. */
export const SCREENSHOTS = join(ROOT, 'test-results/panel');
/** The README's picture of the panel, relative to docs/ (written by `npm run measure`). */
export const README_SCREENSHOT = 'images/panel-overview.png';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** axe's findings of impact serious or critical, as "rule: target" lines. */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`),
    );
}

const CONTROLS =
  'a[href], button, input:not([type="hidden"]), select, textarea, [role="switch"], [role="tab"], [role="combobox"], [tabindex]:not([tabindex="-1"])';

/**
 * Presses Tab from the top of the page until focus comes back round to the first control, and returns the visible,
 * enabled controls it never reached (described by their accessible text). A control counts as
 * reached when its DOM node was, or, for a node the screen re-rendered while the keys were
 * pressed (a live list), one like it: the same tag, role, label or target, at the same place
 * among controls alike.
 */
export async function controlsNotReachedByKeyboard(page: Page): Promise<string[]> {
  await page.evaluate((selector) => {
    // Its text only for a control with neither label nor target: text may hold live counts.
    const describe = (element: HTMLElement): string =>
      [
        element.tagName,
        element.getAttribute('role'),
        element.getAttribute('name'),
        element.getAttribute('type'),
        element.getAttribute('aria-label') ??
          element.getAttribute('href') ??
          element.textContent?.trim().slice(0, 60),
      ].join('|');
    let index = 0;
    for (const element of document.querySelectorAll<HTMLElement>(selector)) {
      element.dataset.keyboardProbe = String(index++);
    }
    (window as unknown as { controlKeys: () => Map<Element, string> }).controlKeys = () => {
      const seen = new Map<string, number>();
      const keys = new Map<Element, string>();
      for (const element of document.querySelectorAll<HTMLElement>(selector)) {
        const described = describe(element);
        const count = seen.get(described) ?? 0;
        seen.set(described, count + 1);
        keys.set(element, `${described}#${count}`);
      }
      return keys;
    };
    (document.activeElement as HTMLElement | null)?.blur();
  }, CONTROLS);
  const reached = new Set<string>();
  let first: string | null = null;
  let previous: string | null = null;
  for (let press = 0; press < 600; press++) {
    await page.keyboard.press('Tab');
    // The focused control, then every control around it: focus on an item of a composite
    // widget (the options of a segmented control, whose group hands focus to the checked one)
    // reaches the widget too.
    const probes = await page.evaluate((selector) => {
      const keys = (window as unknown as { controlKeys: () => Map<Element, string> }).controlKeys();
      const found: string[] = [];
      let at = document.activeElement?.closest(selector);
      while (at) {
        const probe = (at as HTMLElement).dataset.keyboardProbe;
        if (probe !== undefined) found.push(`probe ${probe}`);
        found.push(keys.get(at) ?? '');
        at = at.parentElement?.closest(selector);
      }
      return found;
    }, CONTROLS);
    const probe = probes[0] ?? null;
    // A date input takes several presses (day, month, year …) without leaving the control.
    if (probe === null || probe === previous) continue;
    if (probe === first) break;
    first ??= probe;
    previous = probe;
    for (const each of probes) reached.add(each);
  }
  return page.evaluate(
    ({ selector, reachedKeys }) => {
      const keys = (window as unknown as { controlKeys: () => Map<Element, string> }).controlKeys();
      const missed: string[] = [];
      for (const element of document.querySelectorAll<HTMLElement>(selector)) {
        const rect = element.getBoundingClientRect();
        const hidden = rect.width === 0 || rect.height === 0 || element.closest('[inert]') !== null;
        const disabled = (element as HTMLButtonElement).disabled === true;
        const nested = element.parentElement?.closest(selector) != null;
        if (hidden || disabled || nested) continue;
        const probe = element.dataset.keyboardProbe;
        const byNode = probe !== undefined && reachedKeys.includes(`probe ${probe}`);
        if (!byNode && !reachedKeys.includes(keys.get(element) ?? '')) {
          const label =
            element.getAttribute('aria-label') ?? element.textContent?.trim() ?? element.tagName;
          missed.push(`${element.tagName.toLowerCase()} "${label.slice(0, 60)}"`);
        }
      }
      return missed;
    },
    { selector: CONTROLS, reachedKeys: [...reached] },
  );
}
