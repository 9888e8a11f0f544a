import { Controller, Get, Injectable } from '@nestjs/common';
import { Query, Resolver } from '@nestjs/graphql';
import { Test } from '@nestjs/testing';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { describe, expect, it } from 'vitest';
import { HandlerOutcomeInterceptor } from './handler-outcome.interceptor.js';
import { SluiceModule } from './sluice.module.js';

@Resolver()
class BooksResolver {
  @Query(() => String)
  book(): string {
    return 'a book';
  }
}

@WebSocketGateway()
class ChatGateway {
  @SubscribeMessage('say')
  say(): string {
    return 'said';
  }
}

@Controller()
class BooksController {
  @Get('books')
  books(): string {
    return 'books';
  }
}

@Injectable()
class Shelf {}

const interceptorsOf = (type: object) =>
  (Reflect.getMetadata('__interceptors__', type) as unknown[] | undefined) ?? [];

const compile = () =>
  Test.createTestingModule({
    imports: [SluiceModule.forRoot({ policies: [] })],
    controllers: [BooksController],
    providers: [BooksResolver, ChatGateway, Shelf],
  }).compile();

describe('the handler outcome interceptor', () => {
  it('is on resolvers and gateways before the app initialises, and on no HTTP controller', async () => {
    const moduleRef = await compile();
    for (const type of [BooksResolver, ChatGateway]) {
      expect(interceptorsOf(type).map((each) => each instanceof HandlerOutcomeInterceptor)).toEqual(
        [true],
      );
    }
    // An HTTP handler with no interceptor skips Nest's rxjs chain on every request.
    expect(interceptorsOf(BooksController)).toEqual([]);
    expect(interceptorsOf(Shelf)).toEqual([]);
    // A second app from the same classes (as tests build them) puts it there once.
    await (await compile()).close();
    expect(interceptorsOf(BooksResolver)).toHaveLength(1);
    await moduleRef.close();
  });
});
