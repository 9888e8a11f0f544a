import type { ValueTransformer } from 'typeorm';

/** node-postgres returns bigint columns as strings; versions and ids stay far below 2^53. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
