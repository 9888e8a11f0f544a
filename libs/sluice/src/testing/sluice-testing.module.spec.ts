// An app's own controller spec, written as docs/guide.md ("Testing your app") says: the guard
// beside the app's auth guard, compiled with SluiceTestingModule or with overrideGuard.
import { Controller, Injectable, Post, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, SluiceGuard, SluiceTestingModule, Throttle } from '../index.js';
import type { INestApplication } from '@nestjs/common';
import { SignedInGuard } from './memory-app.fixture.js';

@Injectable()
class PostsService {
  create(): string {
    return 'created';
  }
}

@Controller('posts')
class PostsController {
  constructor(private readonly posts: PostsService) {}

  @Post()
  @UseGuards(SignedInGuard, SluiceGuard)
  @Throttle('post', { algorithm: 'fixed-window', limit: 2, periodMs: 60_000, key: 'user' })
  create(): string {
    return this.posts.create();
  }
}

const apps: INestApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function serve(build: ReturnType<typeof Test.createTestingModule>): Promise<string> {
  const moduleRef = await build.compile();
  const app = moduleRef.createNestApplication({ logger: false });
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

async function post(url: string, user: string, times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let n = 0; n < times; n++) {
    const response = await fetch(`${url}/posts`, { method: 'POST', headers: { 'x-user': user } });
    statuses.push(response.status);
  }
  return statuses;
}

describe('SluiceTestingModule in an app’s controller spec', () => {
  it('compiles the guarded controller and limits each user in memory, on the spec’s clock', async () => {
    const clock = new ManualClock(1_800_000_000_000_000);
    const url = await serve(
      Test.createTestingModule({
        imports: [SluiceTestingModule.forRoot({ clock })],
        controllers: [PostsController],
        providers: [PostsService],
      }),
    );
    expect(await post(url, 'ann', 3)).toEqual([201, 201, 429]);
    expect(await post(url, 'bob', 1)).toEqual([201]);
    clock.advance(60_000_000);
    expect(await post(url, 'ann', 1)).toEqual([201]);
  });

  it('lets every request through with limits off', async () => {
    const url = await serve(
      Test.createTestingModule({
        imports: [SluiceTestingModule.forRoot({ enabled: false })],
        controllers: [PostsController],
        providers: [PostsService],
      }),
    );
    expect(await post(url, 'ann', 4)).toEqual([201, 201, 201, 201]);
  });

  it('takes the module’s policies, and refuses a bad option naming it', async () => {
    const url = await serve(
      Test.createTestingModule({
        imports: [
          SluiceTestingModule.forRoot({
            policies: [{ name: 'post', algorithm: 'fixed-window', limit: 1, periodMs: 1_000 }],
          }),
        ],
        controllers: [PostsController],
        providers: [PostsService],
      }),
    ).catch((error: unknown) => String(error));
    // The decorator's default differs from the module's definition: the start says where.
    expect(url).toMatch(/policy "post" is defined in SluiceModule options and differently/);
    expect(() => SluiceTestingModule.forRoot({ enabled: 'no' as unknown as boolean })).toThrow(
      /options\.enabled/,
    );
  });

  it('compiles without Sluice at all when the spec overrides the guard', async () => {
    const url = await serve(
      Test.createTestingModule({
        controllers: [PostsController],
        providers: [PostsService],
      })
        .overrideGuard(SluiceGuard)
        .useValue({ canActivate: () => true }),
    );
    expect(await post(url, 'ann', 3)).toEqual([201, 201, 201]);
  });

  it('fails to compile without either, as the guide warns', async () => {
    const failure = await Test.createTestingModule({
      controllers: [PostsController],
      providers: [PostsService],
    })
      .compile()
      .catch((error: unknown) => String(error));
    expect(failure).toMatch(/can't resolve dependencies of the SluiceGuard/);
  });
});
