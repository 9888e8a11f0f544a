import { Controller, Get, UseGuards, type ModuleMetadata } from '@nestjs/common';
import { SluiceGuard, SluiceModule, Throttle, type SluiceModuleOptions } from '@sluice/nest';

@Controller('articles')
@UseGuards(SluiceGuard)
@Throttle('loose', { algorithm: 'sliding-log', limit: 100, periodMs: 60_000, key: 'ip' })
export class ArticlesController {
  @Get()
  list(): string {
    return 'articles';
  }

  @Get('export')
  @Throttle('strict', { algorithm: 'sliding-log', limit: 2, periodMs: 60_000, key: 'ip' })
  exportAll(): string {
    return 'export';
  }
}

export function methodOverClassApp(options: SluiceModuleOptions): ModuleMetadata {
  return { imports: [SluiceModule.forRoot(options)], controllers: [ArticlesController] };
}
