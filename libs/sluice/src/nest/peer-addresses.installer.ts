import { Inject, Injectable, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { keepPeerAddresses, type ConnectionSource } from '../http/peer-address.keeper.js';

/**
 * Has the app's HTTP server keep each connection's client address from the moment it opens, so a
 * client that resets its connection is still counted as itself (http/peer-address.keeper.ts).
 */
@Injectable()
export class PeerAddressesInstaller implements OnApplicationBootstrap {
  constructor(@Optional() @Inject(HttpAdapterHost) private readonly host?: HttpAdapterHost) {}

  onApplicationBootstrap(): void {
    // Null in an application context (NestFactory.createApplicationContext): no server to watch.
    const adapter = this.host?.httpAdapter;
    if (adapter === undefined || adapter === null) return;
    const server = adapter.getHttpServer() as Partial<ConnectionSource> | undefined;
    if (typeof server?.on === 'function') keepPeerAddresses(server as ConnectionSource);
  }
}
