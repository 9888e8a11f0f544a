import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { MercuriusDriver, type MercuriusDriverConfig } from '@nestjs/mercurius';
import {
  Injectable,
  UnauthorizedException,
  UseGuards,
  type ExecutionContext,
  type ModuleMetadata,
} from '@nestjs/common';
import {
  Args,
  GqlExecutionContext,
  GraphQLModule,
  Mutation,
  Query,
  Resolver,
} from '@nestjs/graphql';
import {
  SluiceGuard,
  SluiceModule,
  Throttle,
  type RequestResponse,
  type SluiceModuleOptions,
} from '@sluice/nest/internals';
import { WorkCounter } from '../../support/work.counter.js';

export const LIMIT = 2;
/** A sliding log: no window boundary can fall inside a test and reset the count. */
const TWO_A_MINUTE = {
  algorithm: 'sliding-log',
  limit: LIMIT,
  periodMs: 60_000,
  key: 'ip',
} as const;

const typeDefs = /* GraphQL */ `
  type Query {
    news: String!
    quote: String!
    weather: String!
    report(ms: Int!): String!
    failingReport(ms: Int!): String!
    catalog: Catalog!
  }
  type Catalog {
    a: String!
    b: String!
    c: String!
    d: String!
  }
  type Mutation {
    signIn(password: String!): String!
  }
`;

/** A subclass as a guide's reader writes it, put on a resolver with @UseGuards. */
@Injectable()
export class GqlSluiceGuard extends SluiceGuard {}

/**
 * The documented hook for a resolver context without a response (here `{ req }` only): the
 * request from the GraphQL context, no response, so no headers are set.
 */
@Injectable()
export class GqlRequestOnlyGuard extends SluiceGuard {
  protected override getRequestResponse(context: ExecutionContext): RequestResponse {
    const { req } = GqlExecutionContext.create(context).getContext<{ req: unknown }>();
    return { req, res: undefined };
  }
}

@Resolver()
export class NewsResolver {
  constructor(private readonly work: WorkCounter) {}

  @Query('news')
  @UseGuards(SluiceGuard)
  @Throttle('graphql', TWO_A_MINUTE)
  news(): string {
    return 'all quiet';
  }

  @Query('quote')
  @UseGuards(GqlRequestOnlyGuard)
  @Throttle('graphql')
  quote(): string {
    return 'less is more';
  }

  /** Guarded by its own @UseGuards and, in globalGraphqlApp, by the global guard as well. */
  @Query('weather')
  @UseGuards(GqlSluiceGuard)
  @Throttle('weather', TWO_A_MINUTE)
  weather(): string {
    return 'fair';
  }

  /** One report at a time per address: the slot is held until the resolver has answered. */
  @Query('report')
  @UseGuards(SluiceGuard)
  @Throttle('gql-report', { algorithm: 'concurrency', limit: 1, periodMs: 60_000, key: 'ip' })
  async report(@Args('ms') ms: number): Promise<string> {
    await this.work.run(ms);
    return `after ${ms} ms`;
  }

  /** The same report, failing once it has worked: its slot is given back all the same. */
  @Query('failingReport')
  @UseGuards(SluiceGuard)
  @Throttle('gql-report')
  async failingReport(@Args('ms') ms: number): Promise<string> {
    await this.work.run(ms);
    throw new Error('the report failed');
  }

  /** Charged by its query's cost, which the module's costOf computes before it runs. */
  @Query('catalog')
  @UseGuards(SluiceGuard)
  @Throttle('gql-points', { algorithm: 'fixed-window', limit: 10, periodMs: 60_000, key: 'ip' })
  catalog(): Record<string, string> {
    return { a: 'a', b: 'b', c: 'c', d: 'd' };
  }

  /** Only wrong passwords count: a resolver's error is the failure, though HTTP says 200. */
  @Mutation('signIn')
  @UseGuards(SluiceGuard)
  @Throttle('gql-sign-in', { ...TWO_A_MINUTE, count: 'failures' })
  signIn(@Args('password') password: string): string {
    if (password !== 'open sesame') throw new UnauthorizedException('wrong password');
    return 'welcome';
  }
}

/**
 * A schema-first GraphQL app on Apollo. `withResponse`: the resolver context carries the HTTP
 * response as well as the request.
 */
export function graphqlApp(
  options: SluiceModuleOptions,
  withResponse: boolean,
  global = false,
  formatError?: ApolloDriverConfig['formatError'],
): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot({ ...options, global }),
      GraphQLModule.forRoot<ApolloDriverConfig>({
        driver: ApolloDriver,
        typeDefs,
        context: withResponse
          ? ({ req, res }: { req: unknown; res: unknown }) => ({ req, res })
          : ({ req }: { req: unknown }) => ({ req }),
        ...(formatError === undefined ? {} : { formatError }),
      }),
    ],
    providers: [NewsResolver, GqlRequestOnlyGuard, GqlSluiceGuard, WorkCounter],
  };
}

/** The same resolvers on Mercurius (Fastify), the request and reply in the context as the guide says. */
export function mercuriusApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [
      SluiceModule.forRoot(options),
      GraphQLModule.forRoot<MercuriusDriverConfig>({
        driver: MercuriusDriver,
        typeDefs,
        context: (req: unknown, reply: unknown) => ({ req, reply }),
      }),
    ],
    providers: [NewsResolver, GqlRequestOnlyGuard, GqlSluiceGuard, WorkCounter],
  };
}
