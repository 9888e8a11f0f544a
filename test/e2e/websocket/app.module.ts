import type { IncomingMessage } from 'node:http';
import { Injectable, UseGuards, type ExecutionContext, type ModuleMetadata } from '@nestjs/common';
import {
  MessageBody,
  SubscribeMessage,
  WebSocketGateway,
  type OnGatewayConnection,
  WsException,
  type WsResponse,
} from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import {
  SluiceGuard,
  SluiceModule,
  Throttle,
  type RequestResponse,
  type SluiceModuleOptions,
} from '@sluice/nest/internals';
import { WorkCounter } from '../../support/work.counter.js';

export const LIMIT = 2;

/** A client socket that remembers the HTTP request it was upgraded from. */
type ChatSocket = WebSocket & { upgradeRequest?: IncomingMessage };

/**
 * The documented hook for WebSocket handlers: the upgrade request stands for the request (its
 * address and headers are the client's); there is no response.
 */
@Injectable()
export class WsSluiceGuard extends SluiceGuard {
  protected override getRequestResponse(context: ExecutionContext): RequestResponse {
    const client = context.switchToWs().getClient<ChatSocket>();
    return { req: client.upgradeRequest, res: undefined };
  }
}

/** A sliding log: no window boundary can fall inside a test and reset the count. */
const perMinute = (limit: number) =>
  ({ algorithm: 'sliding-log', limit, periodMs: 60_000, key: 'header:x-client' }) as const;

const oneExportAtOnce = {
  algorithm: 'concurrency',
  limit: 1,
  periodMs: 60_000,
  key: 'header:x-client',
} as const;

@WebSocketGateway({ path: '/chat' })
export class ChatGateway implements OnGatewayConnection {
  constructor(private readonly work: WorkCounter) {}

  handleConnection(client: ChatSocket, request: IncomingMessage): void {
    client.upgradeRequest = request;
  }

  @SubscribeMessage('reply')
  @UseGuards(WsSluiceGuard)
  @Throttle('ws-reply', perMinute(LIMIT))
  reply(@MessageBody() text: string): WsResponse<string> {
    return { event: 'replied', data: `re: ${text}` };
  }

  /**
   * One export at a time per client: the slot is taken when the guard admits the message and
   * given back when the handler's answer is sent.
   */
  @SubscribeMessage('export')
  @UseGuards(WsSluiceGuard)
  @Throttle('ws-export', oneExportAtOnce)
  async export(@MessageBody() job: { ms: number }): Promise<WsResponse<string>> {
    await this.work.run(job.ms);
    return { event: 'exported', data: `after ${job.ms} ms` };
  }

  /** The same export, failing once it has worked: its slot is given back all the same. */
  @SubscribeMessage('export-failing')
  @UseGuards(WsSluiceGuard)
  @Throttle('ws-export')
  async exportFailing(@MessageBody() job: { ms: number }): Promise<WsResponse<string>> {
    await this.work.run(job.ms);
    throw new WsException('the export failed');
  }

  /** Under the default guard: the socket is the request, and there is no response. */
  @SubscribeMessage('ping')
  @UseGuards(SluiceGuard)
  @Throttle('ws-ping', perMinute(LIMIT))
  ping(): WsResponse<string> {
    return { event: 'pong', data: 'pong' };
  }
}

export function websocketApp(options: SluiceModuleOptions): ModuleMetadata {
  return {
    imports: [SluiceModule.forRoot(options)],
    providers: [ChatGateway, WsSluiceGuard, WorkCounter],
  };
}
