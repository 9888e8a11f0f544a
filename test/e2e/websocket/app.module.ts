import type { IncomingMessage } from 'node:http';
import { Injectable, UseGuards, type ExecutionContext, type ModuleMetadata } from '@nestjs/common';
import {
  MessageBody,
  SubscribeMessage,
  WebSocketGateway,
  type OnGatewayConnection,
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

@WebSocketGateway({ path: '/chat' })
export class ChatGateway implements OnGatewayConnection {
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
  @Throttle('ws-export', {
    algorithm: 'concurrency',
    limit: 1,
    periodMs: 60_000,
    key: 'header:x-client',
  })
  async export(@MessageBody() job: { ms: number }): Promise<WsResponse<string>> {
    await new Promise((resolve) => setTimeout(resolve, job.ms));
    return { event: 'exported', data: `after ${job.ms} ms` };
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
    providers: [ChatGateway, WsSluiceGuard],
  };
}
