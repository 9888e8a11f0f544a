import {
  Controller,
  Get,
  Inject,
  Injectable,
  Module,
  Post,
  UseGuards,
  type DynamicModule,
  type ModuleMetadata,
} from '@nestjs/common';
import {
  SkipThrottle,
  SluiceGuard,
  SluiceModule,
  Throttle,
  type SluiceModuleOptions,
} from '@sluice/nest';

export interface Settings {
  REDIS_URL: string;
  RATE_LIMIT_PREFIX: string;
}

/** Stands in for @nestjs/config's ConfigService. */
@Injectable()
export class SettingsService {
  constructor(private readonly values: Settings) {}

  get<K extends keyof Settings>(key: K): Settings[K] {
    return this.values[key];
  }
}

@Module({})
export class SettingsModule {
  static register(values: Settings): DynamicModule {
    return {
      module: SettingsModule,
      providers: [{ provide: SettingsService, useValue: new SettingsService(values) }],
      exports: [SettingsService],
    };
  }
}

const ONCE_A_MINUTE = { algorithm: 'sliding-log', limit: 1, periodMs: 60_000, key: 'ip' } as const;

function optionsFrom(settings: SettingsService): SluiceModuleOptions {
  return {
    redis: settings.get('REDIS_URL'),
    prefix: settings.get('RATE_LIMIT_PREFIX'),
    policies: [{ name: 'configured', ...ONCE_A_MINUTE }],
  };
}

/** The options-factory class forRootAsync({ useClass }) instantiates. */
@Injectable()
export class SluiceSettings {
  constructor(@Inject(SettingsService) private readonly settings: SettingsService) {}

  createSluiceOptions(): SluiceModuleOptions {
    return optionsFrom(this.settings);
  }
}

@Controller('guarded')
@UseGuards(SluiceGuard)
export class GuardedController {
  @Get()
  @Throttle('configured')
  get(): string {
    return 'guarded';
  }
}

/** No @UseGuards: limited only when the module registers the guard globally. */
@Controller('plain')
export class PlainController {
  @Get()
  @Throttle('once', ONCE_A_MINUTE)
  get(): string {
    return 'plain';
  }
}

@Controller('catalog')
@UseGuards(SluiceGuard)
@Throttle('browse', { ...ONCE_A_MINUTE, limit: 100 })
export class CatalogController {
  @Get()
  list(): string {
    return 'list';
  }

  @Get(':id')
  @SkipThrottle()
  show(): string {
    return 'one';
  }

  @Post('import')
  @Throttle(['browse', 'write'])
  import(): string {
    return 'imported';
  }

  /** Not a route: route discovery leaves it out. */
  helper(): string {
    return 'helper';
  }
}

@Controller('typos')
@UseGuards(SluiceGuard)
export class TyposController {
  @Get('first')
  @Throttle('undefined-one')
  first(): string {
    return 'first';
  }

  @Get('second')
  @Throttle(['configured', 'undefined-two'])
  second(): string {
    return 'second';
  }
}

export function fromFactory(settings: Settings): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRootAsync({
        imports: [SettingsModule.register(settings)],
        inject: [SettingsService],
        useFactory: optionsFrom,
      }),
    ],
    controllers: [GuardedController],
  };
}

export function fromClass(settings: Settings): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRootAsync({
        imports: [SettingsModule.register(settings)],
        useClass: SluiceSettings,
      }),
    ],
    controllers: [GuardedController],
  };
}

export function plainApp(options: SluiceModuleOptions & { global?: boolean }): ModuleMetadata {
  return { imports: [SluiceModule.forRoot(options)], controllers: [PlainController] };
}

export function catalogApp(options: SluiceModuleOptions): ModuleMetadata {
  const policies = [{ name: 'write', ...ONCE_A_MINUTE }];
  return {
    imports: [SluiceModule.forRoot({ ...options, policies })],
    controllers: [CatalogController],
  };
}

export function typosApp(options: SluiceModuleOptions): ModuleMetadata {
  const policies = [{ name: 'configured', ...ONCE_A_MINUTE }];
  return {
    imports: [SluiceModule.forRoot({ ...options, policies })],
    controllers: [TyposController],
  };
}
