import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { PolicySimulator } from './PolicySimulator';

afterEach(cleanup);

describe('the policy simulator', () => {
  it('plots a burst of 20 against a fixed window of 5 a minute: 5 admitted, 15 rejected', async () => {
    const user = userEvent.setup();
    render(
      <PolicySimulator
        policy={() => ({ algorithm: 'fixed-window', limit: 5, periodMs: 60_000 })}
        tiers={[]}
      />,
    );

    await user.selectOptions(screen.getByLabelText('Pattern'), 'Burst');
    await user.clear(screen.getByLabelText('Requests'));
    await user.type(screen.getByLabelText('Requests'), '20');
    await user.click(screen.getByRole('button', { name: 'Simulate' }));

    expect(screen.getByTestId('simulated-admitted').textContent).toBe('5');
    expect(screen.getByTestId('simulated-rejected').textContent).toBe('15');
    expect(screen.getByRole('img').getAttribute('aria-label')).toMatch(
      /5 admitted and 15 rejected/,
    );
  });

  it('shows the boundary case letting a fixed window admit twice its limit', async () => {
    const user = userEvent.setup();
    render(
      <PolicySimulator
        policy={() => ({ algorithm: 'fixed-window', limit: 10, periodMs: 1000 })}
        tiers={[]}
      />,
    );

    await user.selectOptions(screen.getByLabelText('Pattern'), 'Boundary 0.8 s – 1.2 s');
    await user.click(screen.getByRole('button', { name: 'Simulate' }));

    expect(screen.getByTestId('simulated-admitted').textContent).toBe('20');
  });

  it('runs a steady rate for a duration', async () => {
    const user = userEvent.setup();
    render(
      <PolicySimulator
        policy={() => ({ algorithm: 'gcra', limit: 2, periodMs: 1000, burst: 1 })}
        tiers={[]}
      />,
    );

    await user.selectOptions(screen.getByLabelText('Pattern'), 'Steady rate');
    await user.clear(screen.getByLabelText('Rate per second'));
    await user.type(screen.getByLabelText('Rate per second'), '4');
    await user.clear(screen.getByLabelText('Duration (s)'));
    await user.type(screen.getByLabelText('Duration (s)'), '2');
    await user.click(screen.getByRole('button', { name: 'Simulate' }));

    expect(screen.getByTestId('simulated-admitted').textContent).toBe('4');
    expect(screen.getByTestId('simulated-rejected').textContent).toBe('4');
  });

  it("simulates at a tier's rate when one is chosen", async () => {
    const user = userEvent.setup();
    const policy = (tier?: string) =>
      ({ algorithm: 'fixed-window', limit: tier === 'pro' ? 12 : 5, periodMs: 60_000 }) as const;
    render(<PolicySimulator policy={policy} tiers={['free', 'pro']} />);

    await user.selectOptions(screen.getByLabelText('Pattern'), 'Burst');
    await user.clear(screen.getByLabelText('Requests'));
    await user.type(screen.getByLabelText('Requests'), '20');
    await user.click(screen.getByRole('button', { name: 'Simulate' }));
    expect(screen.getByTestId('simulated-admitted').textContent).toBe('5');

    await user.selectOptions(screen.getByLabelText('At the rate of'), 'tier pro');
    await user.click(screen.getByRole('button', { name: 'Simulate' }));
    expect(screen.getByTestId('simulated-admitted').textContent).toBe('12');
  });

  it('says what is missing instead of simulating a policy it cannot read', async () => {
    const user = userEvent.setup();
    render(
      <PolicySimulator policy={() => 'Enter a whole number for Limit to simulate'} tiers={[]} />,
    );

    await user.click(screen.getByRole('button', { name: 'Simulate' }));

    expect(screen.getByRole('alert').textContent).toBe(
      'Enter a whole number for Limit to simulate',
    );
    expect(screen.queryByTestId('simulated-admitted')).toBeNull();
  });
});
