import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-failure.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a connect timeout', new Error('timeout exceeded when trying to connect')],
    ['a connection that died mid-query', new Error('Connection terminated unexpectedly')],
    ['a query outliving query_timeout', new Error('Query read timeout')],
    ['a server shutting down', new QueryFailedError('SELECT 1', [], withCode('57P01'))],
    ['a statement timeout', new QueryFailedError('SELECT 1', [], withCode('57014'))],
    ['a lost connection (class 08)', new QueryFailedError('SELECT 1', [], withCode('08006'))],
    ['both loopback addresses refusing', new AggregateError([withCode('ECONNREFUSED')])],
    [
      'a start-up failure wrapping one',
      new Error('could not open', { cause: withCode('ETIMEDOUT') }),
    ],
  ])('says yes for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', new QueryFailedError('INSERT', [], withCode('23505'))],
    ['a check violation', new QueryFailedError('INSERT', [], withCode('23514'))],
    ['a programming error', new TypeError('undefined is not a function')],
    ['something that is not an error', 'ECONNREFUSED'],
  ])('says no for %s, which is a bug or a bad request rather than an outage', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
