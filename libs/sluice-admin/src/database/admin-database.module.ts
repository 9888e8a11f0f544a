import { Module } from '@nestjs/common';
import { VersionedWrites } from './versioned-writes.service.js';

/**
 * What the feature modules share of the database beyond the 'sluice' DataSource (which
 * SluiceAdminModule opens, from its options): the versioned, audited write.
 */
@Module({ providers: [VersionedWrites], exports: [VersionedWrites] })
export class AdminDatabaseModule {}
