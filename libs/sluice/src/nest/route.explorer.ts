import {
  Inject,
  Injectable,
  Logger,
  RequestMethod,
  type OnModuleInit,
  type Type,
} from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { PolicyBus } from '../bus/policy.bus.js';
import { SluiceEngine } from '../engine/sluice.engine.js';
import { parsePolicy } from '../policy/policy.schema.js';
import { PolicyValidationError } from '../policy/policy-validation.error.js';
import { TrackerResolver } from '../trackers/tracker.resolver.js';
import { RouteRegistry, type ThrottledRoute } from './route.registry.js';
import type { PolicyDefaults } from '../metadata/throttle.decorator.js';
import { ThrottleMetadataAccessor } from '../metadata/throttle-metadata.accessor.js';

interface CodeDefault {
  defaults: PolicyDefaults;
  where: string;
}

/**
 * At start-up: finds every handler under @Throttle() or @SkipThrottle(), registers the policy
 * defaults the decorators carry, and refuses to start when a named policy is defined nowhere.
 */
@Injectable()
export class RouteExplorer implements OnModuleInit {
  private readonly logger = new Logger('Sluice');

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(ThrottleMetadataAccessor) private readonly marks: ThrottleMetadataAccessor,
    @Inject(SluiceEngine) private readonly engine: SluiceEngine,
    @Inject(RouteRegistry) private readonly routes: RouteRegistry,
    @Inject(TrackerResolver) private readonly trackers: TrackerResolver,
    @Inject(PolicyBus) private readonly bus: PolicyBus,
  ) {}

  async onModuleInit(): Promise<void> {
    const routes: ThrottledRoute[] = [];
    const defaults = new Map<string, CodeDefault>();
    const wrappers = [
      ...this.discovery.getControllers().map((wrapper) => ({ wrapper, isController: true })),
      ...this.discovery.getProviders().map((wrapper) => ({ wrapper, isController: false })),
    ];
    for (const { wrapper, isController } of wrappers) {
      const instance: unknown = wrapper.instance;
      if (typeof instance !== 'object' || instance === null) continue;
      const prototype = Object.getPrototypeOf(instance) as object | null;
      for (const handler of this.scanner.getAllMethodNames(prototype)) {
        const route = this.route(instance.constructor, handler, isController, defaults);
        if (route !== undefined) routes.push(route);
      }
    }
    this.registerDefaults(defaults);
    await this.bus.start();
    this.assertDefined(routes);
    this.routes.replace(routes);
  }

  private route(
    owner: Function, // eslint-disable-line @typescript-eslint/no-unsafe-function-type -- any class
    handlerName: string,
    isController: boolean,
    defaults: Map<string, CodeDefault>,
  ): ThrottledRoute | undefined {
    const handler: unknown = (owner.prototype as Record<string, unknown>)[handlerName];
    if (typeof handler !== 'function') return undefined;
    const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as
      RequestMethod | undefined;
    const isHandler = isController
      ? requestMethod !== undefined
      : Reflect.getMetadataKeys(handler).length > 0;
    if (!isHandler) return undefined;
    const marks = this.marks.of(handler, owner as Type);
    if (!marks.marked) return undefined;
    const where = `${owner.name}.${handlerName}`;
    const [first] = marks.names ?? [];
    if (marks.defaults !== undefined && first !== undefined) {
      this.collectDefault(defaults, first, { defaults: marks.defaults, where });
    }
    return {
      owner: owner.name,
      handler: handlerName,
      method: requestMethod === undefined ? null : RequestMethod[requestMethod],
      path: requestMethod === undefined ? null : routePath(owner, handler),
      policies: [...(marks.names ?? [])],
      skipped: marks.skip,
      tier: marks.tier ?? null,
    };
  }

  private collectDefault(
    defaults: Map<string, CodeDefault>,
    name: string,
    found: CodeDefault,
  ): void {
    const known = defaults.get(name);
    if (known === undefined) defaults.set(name, found);
    else if (definition(name, known.defaults) !== definition(name, found.defaults)) {
      throw new Error(
        `Sluice: policy "${name}" has different code defaults on ${known.where} and ${found.where}`,
      );
    }
  }

  private registerDefaults(defaults: Map<string, CodeDefault>): void {
    for (const [name, { defaults: input, where }] of defaults) {
      const existing = this.bus.codeDefaults().find((policy) => policy.name === name);
      if (existing !== undefined) {
        if (definition(name, input) !== JSON.stringify(existing)) {
          throw new Error(
            `Sluice: policy "${name}" is defined in SluiceModule options and differently by @Throttle() on ${where}`,
          );
        }
        continue;
      }
      try {
        this.bus.addCodeDefault(parsePolicy({ ...input, name, source: 'code' }));
      } catch (error) {
        if (!(error instanceof PolicyValidationError)) throw error;
        throw new Error(`Sluice: @Throttle("${name}") on ${where}: ${error.message}`, {
          cause: error,
        });
      }
    }
  }

  private assertDefined(routes: ThrottledRoute[]): void {
    const missing = new Map<string, string[]>();
    for (const route of routes) {
      for (const name of route.policies) {
        if (this.engine.policies.get(name) !== undefined) continue;
        missing.set(name, [...(missing.get(name) ?? []), `${route.owner}.${route.handler}`]);
      }
    }
    if (missing.size > 0) {
      const list = [...missing].map(([name, users]) => `"${name}" (used by ${users.join(', ')})`);
      const message = `Sluice: @Throttle() names policies defined nowhere: ${list.join('; ')}. Define them in SluiceModule.forRoot({ policies }), give @Throttle() a default, or create them in the admin.`;
      // Without the stored snapshot, the database's policies are unknown: wait for them.
      if (!this.bus.synced)
        this.logger.error(`${message} (the policy snapshot is not readable yet)`);
      else throw new Error(message);
    }
    const unknownKeys = this.engine.policies
      .all()
      .filter((policy) => !this.trackers.knows(policy.key));
    if (unknownKeys.length > 0) {
      throw new Error(
        `Sluice: policies count by trackers that are not registered: ${unknownKeys
          .map((policy) => `"${policy.name}" (key "${policy.key}")`)
          .join(', ')}. Add them to SluiceModule.forRoot({ trackers }).`,
      );
    }
  }
}

const definition = (name: string, input: PolicyDefaults): string =>
  JSON.stringify(parsePolicy({ ...input, name, source: 'code' }));

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- any class and handler
function routePath(owner: Function, handler: Function): string {
  const parts: unknown[] = [
    Reflect.getMetadata(PATH_METADATA, owner),
    Reflect.getMetadata(PATH_METADATA, handler),
  ];
  const segments = parts
    .map((part) => (Array.isArray(part) ? (part[0] as unknown) : part))
    .filter((part): part is string => typeof part === 'string')
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '');
  return `/${segments.join('/')}`;
}
