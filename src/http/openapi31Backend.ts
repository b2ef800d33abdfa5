import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  OpenAPIBackend,
  OpenAPIValidator,
  type Context,
  type Document,
  type Options,
  type Request,
} from 'openapi-backend';
import { compileRequestParsing, compileRouter, type Route } from './compiledRouting.js';
import { dispatchesLean, dispatchRequest } from './requestDispatch.js';
import { DomainError } from '../core/errors.js';
import type { AppContext } from './context.js';
import { methodNotAllowed } from './errors.js';
import { decodablePath } from './requestChecks.js';

/**
 * openapi-backend checks documents against the OpenAPI 3.0 meta-schema and validates with draft-07
 * Ajv; with a 3.1 document that silently yields zero routes and ignores 2020-12 keywords. This
 * subclass validates with Ajv 2020-12 (all errors, formats) and leaves spec linting to Spectral.
 * It also routes once (compiledRouting.ts) and dispatches without openapi-backend's per-request
 * overhead (requestDispatch.ts).
 */
export class OpenAPI31Backend extends OpenAPIBackend<Document> {
  /** Whether requests are validated; the validator is built in init() (see there). */
  private readonly validatesRequests: boolean;
  /** The compiled router's lookup, from init(). */
  private routeOf?: (request: Request) => Route;

  constructor(options: Options<Document>) {
    super({
      ...options,
      validate: false,
      customizeAjv: (_draft07, ajvOptions) => {
        const ajv = new Ajv2020({ ...ajvOptions, strict: false, allErrors: true });
        addFormats.default(ajv);
        return ajv;
      },
    });
    this.validatesRequests = options.validate !== false;
  }

  override validateDefinition(): Document {
    return this.definition;
  }

  /**
   * Hands a Koa request to the contract's routing, security and validation, as `path` (the
   * request's path without the API's prefix); a path that is not valid percent-encoding is refused first.
   */
  async serve(ctx: AppContext, path: string): Promise<void> {
    if (!decodablePath(path)) {
      throw new DomainError('invalid_request', 'The path is not valid percent-encoding.', {
        violations: [{ pointer: '/path', message: 'must be valid percent-encoded UTF-8' }],
      });
    }
    await this.handleRequest(
      {
        method: ctx.method,
        path,
        query: ctx.query as Record<string, string>,
        headers: ctx.headers as Record<string, string>,
        body: ctx.request.body,
      },
      ctx,
    );
  }

  /** The answers to a path the contract lacks (404 route_not_found) and to a method it lacks there (405, with Allow). */
  routingRefusals() {
    return {
      notFound: () => {
        throw new DomainError('route_not_found', 'No such route.');
      },
      methodNotAllowed: (c: Context, ctx: AppContext) => {
        ctx.set('Allow', this.allowedMethods(c.request.path).join(', '));
        throw methodNotAllowed();
      },
    };
  }

  /** The methods the contract serves on this path, for the Allow header of a 405. */
  allowedMethods(path: string): string[] {
    return METHODS.filter((method) => this.matchOperation({ method, path, headers: {} }));
  }

  override async handleRequest(request: Request, ...handlerArgs: unknown[]): Promise<unknown> {
    if (!this.routeOf || !dispatchesLean(this)) return super.handleRequest(request, ...handlerArgs);
    return dispatchRequest(this, this.routeOf, request, handlerArgs);
  }

  override async init(): Promise<this> {
    await super.init();
    this.routeOf = compileRouter(this.router);
    compileRequestParsing(this.router);
    if (this.validatesRequests) {
      // openapi-backend compiles the response validators of every operation up front too; the
      // server never checks its own answers (tests do, compiling on demand), and those took
      // about 45 MB of heap at start. Request validators are compiled up front as before.
      this.validator = new OpenAPIValidator<Document>({
        definition: this.definition,
        ajvOpts: this.ajvOpts,
        customizeAjv: this.customizeAjv,
        router: this.router,
        lazyCompileValidators: true,
      });
      this.validator.preCompileRequestValidators();
      this.validate = true;
    }
    return this;
  }
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
