import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { CodeDefaultsSeeder } from './code-defaults.seeder.js';
import { SnapshotPublisher } from './snapshot.publisher.js';

/** At bootstrap: store the code's defaults, then publish the database's snapshot and follow it. */
@Injectable()
export class AdminStartup implements OnApplicationBootstrap {
  private readonly logger = new Logger('SluiceAdmin');

  constructor(
    @Inject(CodeDefaultsSeeder) private readonly seeder: CodeDefaultsSeeder,
    @Inject(SnapshotPublisher) private readonly publisher: SnapshotPublisher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const seeded = await this.seeder.seed();
    if (seeded.length > 0) this.logger.log(`Stored the code defaults of ${seeded.join(', ')}`);
    await this.publisher.start();
  }
}
