import { ConflictException } from '@nestjs/common';

/** 409 `{ statusCode, error, message, currentVersion }`: reload and decide again. */
export class PolicyConflictException extends ConflictException {
  constructor(message: string, currentVersion: number, details: Record<string, unknown> = {}) {
    super({ statusCode: 409, error: 'Conflict', message, currentVersion, ...details });
  }
}

export function staleVersion(
  target: string,
  sentVersion: number,
  currentVersion: number,
): PolicyConflictException {
  const sent = sentVersion === 0 ? 'version 0 (create)' : `version ${sentVersion}`;
  const current = currentVersion === 0 ? 'it does not exist' : `it is at version ${currentVersion}`;
  return new PolicyConflictException(
    `${target} changed since it was read: the request names ${sent}, but ${current}; reload it and apply the change again`,
    currentVersion,
  );
}
