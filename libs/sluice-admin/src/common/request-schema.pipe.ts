import { Body, Query, type PipeTransform } from '@nestjs/common';
import * as nest from '@nestjs/common';
import type { z } from 'zod';
import type { ControllerClass } from './admin-controller.decorator.js';
import { parseRequest } from './invalid-request.exception.js';

/**
 * Validates one part of a request with its zod schema before the handler runs: a 400 naming each
 * bad field, or the parsed value, so controllers and services receive typed input.
 */
export class RequestSchemaPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(
    private readonly schema: S,
    private readonly root: '(body)' | '(query)',
    /** What an absent part stands for: an empty query, or a body that may be left out. */
    private readonly absentAs?: object,
  ) {}

  transform(value: unknown): z.output<S> {
    return parseRequest(this.schema, value ?? this.absentAs, this.root);
  }
}

// Nest 12 takes `{ schema, pipes }` and hands the schema to the OpenAPI document. Nest 11 reads
// any object as a pipe and drops one without `transform`, so there the pipe goes on its own, and
// the schema reaches the document through requestSchemasOf (setup-admin-docs.ts).
const TAKES_SCHEMA = 'StandardSchemaValidationPipe' in nest;

/** The schemas of a handler's body and query, by controller and method. */
export interface RequestSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
}

const recorded = new Map<ControllerClass, Map<string, RequestSchemas>>();

/** Every handler's recorded schemas of one controller. */
export function requestSchemasOf(controller: ControllerClass): ReadonlyMap<string, RequestSchemas> {
  return recorded.get(controller) ?? new Map();
}

function recording(part: keyof RequestSchemas, schema: z.ZodType, nest: ParameterDecorator) {
  return ((target, method, index) => {
    if (typeof method === 'string') {
      const controller = (target as { constructor: ControllerClass }).constructor;
      const byMethod = recorded.get(controller) ?? new Map<string, RequestSchemas>();
      recorded.set(controller, byMethod);
      byMethod.set(method, { ...byMethod.get(method), [part]: schema });
    }
    nest(target, method, index);
  }) satisfies ParameterDecorator;
}

/** The request body, parsed with `schema`; `absentAs` when a body may be left out. */
export function ValidBody(schema: z.ZodType, absentAs?: object): ParameterDecorator {
  const pipe = new RequestSchemaPipe(schema, '(body)', absentAs);
  return recording('body', schema, TAKES_SCHEMA ? Body({ schema, pipes: [pipe] }) : Body(pipe));
}

/** The query string, parsed with `schema`. */
export function ValidQuery(schema: z.ZodType): ParameterDecorator {
  const pipe = new RequestSchemaPipe(schema, '(query)', {});
  return recording('query', schema, TAKES_SCHEMA ? Query({ schema, pipes: [pipe] }) : Query(pipe));
}

/** The raw body, described by `schema` in the OpenAPI document; the handler checks it itself. */
export function DescribedBody(schema: z.ZodType): ParameterDecorator {
  return recording('body', schema, TAKES_SCHEMA ? Body({ schema }) : Body());
}

/** The raw query, described by `schema` in the OpenAPI document; the handler checks it itself. */
export function DescribedQuery(schema: z.ZodType): ParameterDecorator {
  return recording('query', schema, TAKES_SCHEMA ? Query({ schema }) : Query());
}
