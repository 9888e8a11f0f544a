// For apps that keep @nestjs/throttler's guard and decorators and decide in Sluice's engine.
export { SluiceThrottlerStorage, THROTTLER_KEY_KIND } from './sluice-throttler.storage.js';
// The engine it decides in, whole: the storage's constructor takes one (docs/guide.md, migrating
// from @nestjs/throttler), so the entry carries what building one needs.
export * from '../engine/index.js';
