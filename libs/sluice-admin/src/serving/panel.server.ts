import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { PanelFiles, PanelReply } from './panel.files.js';
import { PANEL_FILES } from '../config/sluice-admin.tokens.js';

type Next = () => void;

interface ExpressLike {
  use(path: string, handler: (req: IncomingMessage, res: ServerResponse, next: Next) => void): void;
}

interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(body?: Buffer): unknown;
  callNotFound(): void;
}

interface FastifyLike {
  get(
    path: string,
    handler: (req: { raw: IncomingMessage }, reply: FastifyReplyLike) => void,
  ): void;
}

/**
 * Serves the built panel at /<path> straight on the HTTP server, as Nest's own static serving
 * would, but with nothing to install on either adapter: on Express a handler mounted at /<path>
 * (after Nest's routes, so the API under /<path>/api answers first), on Fastify two routes that
 * its router ranks below the API's. A request the panel does not answer goes on to the app.
 */
@Injectable()
export class PanelServer implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(PANEL_FILES) private readonly files: PanelFiles | null,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (this.files === null || adapter === undefined) return;
    const files = this.files;
    const mount = `/${files.path}`;
    const type = adapter.getType();
    if (type === 'express') {
      adapter.getInstance<ExpressLike>().use(mount, (req, res, next) => {
        const reply = files.reply(
          req.method ?? '',
          (req as { originalUrl?: string }).originalUrl ?? req.url ?? '',
        );
        if (reply === undefined) return next();
        res.writeHead(reply.status, reply.headers).end(reply.body);
      });
    } else if (type === 'fastify') {
      const fastify = adapter.getInstance<FastifyLike>();
      const handler = (req: { raw: IncomingMessage }, res: FastifyReplyLike) => {
        const reply: PanelReply | undefined = files.reply(req.raw.method ?? '', req.raw.url ?? '');
        if (reply === undefined) return res.callNotFound();
        res.code(reply.status).headers(reply.headers).send(reply.body);
      };
      fastify.get(mount, handler);
      fastify.get(`${mount}/*`, handler);
    } else {
      new Logger('SluiceAdmin').warn(
        `The panel is served on Express and Fastify only, not on ${type}; the API at ${mount}/api works`,
      );
    }
  }
}
