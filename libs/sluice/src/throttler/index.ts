// For apps that keep @nestjs/throttler's guard and decorators and decide in Sluice's engine.
export { SluiceThrottlerStorage, THROTTLER_KEY_KIND } from './sluice-throttler.storage.js';
