import type { PolicySnapshot } from '@sluice/nest/internals';
import type { EntityManager } from 'typeorm';
import { PolicyEntity } from './policy.entity.js';
import { SettingEntity } from './setting.entity.js';

export const SETTING_ID = 1;

/** The global version and switch; the row exists from the first migration on. */
export function readSetting(manager: EntityManager): Promise<SettingEntity> {
  return manager.findOneByOrFail(SettingEntity, { id: SETTING_ID });
}

/** Every policy row and the switch at the current version; read it inside one transaction. */
export async function readSnapshot(manager: EntityManager): Promise<PolicySnapshot> {
  const setting = await readSetting(manager);
  const rows = await manager.find(PolicyEntity, { order: { name: 'ASC' } });
  return {
    version: setting.version,
    enforcement: setting.enforcement,
    policies: rows.map((row) => row.body),
  };
}
