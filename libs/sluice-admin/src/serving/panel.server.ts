import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { adminMount } from './admin.mount.js';
import type { PanelFiles, PanelReply } from './panel.files.js';
import { ADMIN_PATH, PANEL_FILES } from '../config/sluice-admin.tokens.js';

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
 * Serves the built panel beside its API (at /<path>, or /<prefix>/<path> under the app's global
 * prefix: admin.mount.ts) straight on the HTTP server, as Nest's own static serving
 * would, but with nothing to install on either adapter: on Express a handler mounted at /<path>
 * (after Nest's routes, so the API under /<path>/api answers first), on Fastify two routes that
 * its router ranks below the API's. A request the panel does not answer goes on to the app.
 */
@Injectable()
export class PanelServer implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(PANEL_FILES) private readonly files: PanelFiles | null,
    @Inject(ADMIN_PATH) private readonly path: string,
    @Optional() @Inject(ApplicationConfig) private readonly config?: ApplicationConfig,
  ) {}

  onModuleInit(): void {
    // Null in an application context (NestFactory.createApplicationContext): nothing to serve.
    const adapter = this.adapterHost.httpAdapter as typeof this.adapterHost.httpAdapter | null;
    if (this.files === null || adapter === undefined || adapter === null) return;
    const files = this.files;
    // Read now, not at construction: main.ts sets the global prefix after NestFactory.create().
    const mount = adminMount(this.path, this.config);
    files.path = mount.slice(1);
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
