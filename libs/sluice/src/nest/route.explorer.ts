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
    // A class registered in several modules, or under several tokens, is one set of handlers.
    const seen = new Set<ClassOf>();
    for (const { wrapper, isController } of wrappers) {
      const owner = classOf(wrapper);
      if (owner === undefined || seen.has(owner)) continue;
      seen.add(owner);
      for (const handler of methodNamesOf(this.scanner, owner)) {
        const route = this.route(owner, handler, isController, defaults);
        if (route !== undefined) routes.push(route);
      }
    }
    this.registerDefaults(defaults);
    await this.bus.start();
    this.assertDefined(routes);
    this.routes.replace(routes);
  }

  private route(
    owner: ClassOf,
    handlerName: string,
    isController: boolean,
    defaults: Map<string, CodeDefault>,
  ): ThrottledRoute | undefined {
    const handler = methodOf(owner, handlerName);
    if (handler === undefined) return undefined;
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
      countedByAddress: [],
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

/** A class as the explorer reads it: its name and the prototype its handlers sit on. */
interface ClassOf {
  readonly name: string;
  readonly prototype: object;
}

/**
 * The class whose handlers a wrapper can carry, read without touching the instance where the
 * metatype tells: a class provider's or controller's metatype (request-scoped, transient and
 * durable ones included, whose instance does not exist yet), else the class of the value a
 * value or factory provider holds. A primitive, a function, a proxy without a prototype (nestjs-cls registers such
 * providers) or one that throws on access carries none; Nest apps hold all of these, so any
 * fault here skips the wrapper rather than failing the app's start.
 */
export function classOf(wrapper: {
  readonly metatype?: unknown;
  readonly inject?: unknown;
  readonly instance?: unknown;
}): ClassOf | undefined {
  try {
    const { metatype, inject } = wrapper;
    // A factory's metatype is its function, not a class: what it returned is read like a value.
    const isFactory = inject !== undefined && inject !== null;
    if (!isFactory && isClass(metatype)) return metatype;
    const instance: unknown = wrapper.instance;
    if (typeof instance !== 'object' || instance === null) return undefined;
    const prototype: unknown = Object.getPrototypeOf(instance);
    if (typeof prototype !== 'object' || prototype === null) return undefined;
    const owner: unknown = Object.getOwnPropertyDescriptor(prototype, 'constructor')?.value;
    return isClass(owner) && owner.prototype === prototype ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** The names of a class's own and inherited methods; none when reading them throws. */
function methodNamesOf(scanner: MetadataScanner, owner: ClassOf): string[] {
  try {
    return scanner.getAllMethodNames(owner.prototype);
  } catch {
    return [];
  }
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- any handler
function methodOf(owner: ClassOf, name: string): Function | undefined {
  try {
    const handler: unknown = (owner.prototype as Record<string, unknown>)[name];
    return typeof handler === 'function' ? handler : undefined;
  } catch {
    return undefined;
  }
}

function isClass(value: unknown): value is ClassOf {
  if (typeof value !== 'function') return false;
  const prototype: unknown = (value as { prototype?: unknown }).prototype;
  return (
    typeof prototype === 'object' &&
    prototype !== null &&
    prototype !== Object.prototype &&
    prototype !== Function.prototype
  );
}

const definition = (name: string, input: PolicyDefaults): string =>
  JSON.stringify(parsePolicy({ ...input, name, source: 'code' }));

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- any handler
function routePath(owner: object, handler: Function): string {
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
