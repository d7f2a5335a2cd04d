/**
 * The spans the service makes, loaded only when tracing is on (tracing.ts imports this module
 * dynamically). They are made explicitly, in our own code, rather than by the auto-instrumentations'
 * import hooks: the production build bundles most packages into a few files (decision 0020), where no
 * import hook sees them, and the same code then traces `npm run dev`, the tests and `npm start` alike
 * (decision 0027). Attribute names follow the OpenTelemetry semantic conventions; the service's own
 * start with `tms.`.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type TextMapGetter } from '@opentelemetry/api';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { getOperationAST, type ExecutionArgs, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { SpanAttributes, StatementTarget, TraceStatement, Tracing } from './tracing.js';

/** Reads a W3C `traceparent`/`tracestate` from a Fetch API request's headers. */
const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** HTTP methods named as themselves; any other is `_OTHER` (semantic conventions: bounded span names). */
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/** Marks a span failed by `error`: its exception event, `error.type` (a PostgreSQL SQLSTATE, an errno code or the class) and status. */
function fail(span: Span, error: unknown) {
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  span.recordException(error instanceof Error ? error : String(error));
  span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof message === 'string' ? message : undefined });
}

/** Leaves out the attributes without a value (OpenTelemetry drops undefined values with a warning). */
const defined = (attributes: SpanAttributes): Attributes => Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined));

/** The first keyword of a statement, after its leading comments (`SELECT`, `INSERT`, `WITH`…). */
function operationOf(text: string): string | undefined {
  return /^(?:\s+|\/\*[\s\S]*?\*\/|--[^\n]*\n)*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
}

/** Tracing over a started SDK (./sdk.ts). */
// Imported dynamically by tracing.ts (only when tracing is on), which ts-unused-exports does not follow.
// ts-unused-exports:disable-next-line
export function createTracing(provider: NodeTracerProvider): Tracing {
  const tracer = provider.getTracer('tms-ingest');

  /** Runs `run` with `span` active; ends it after, failed if `run` throws. */
  async function within<T>(span: Span, run: () => Promise<T> | T, parent = context.active()): Promise<T> {
    try {
      return await context.with(trace.setSpan(parent, span), run);
    } catch (error) {
      fail(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  return {
    plugin(knownPaths) {
      const routes = new Set(knownPaths);
      const requests = new WeakMap<Request, Span>();
      const operations = new WeakMap<Request, Span>();
      const operationSpan = (args: ExecutionArgs) => operations.get((args.contextValue as { request: Request }).request);
      /** Names the operation's span once its document is known: `query LoadBoard`, `mutation` (anonymous). */
      const nameOperation = (args: ExecutionArgs) => {
        const span = operationSpan(args);
        const operation = getOperationAST(args.document, args.operationName);
        if (!span || !operation) return;
        const name = operation.name?.value;
        span.updateName(name ? `${operation.operation} ${name}` : operation.operation);
        span.setAttributes(defined({ 'graphql.operation.type': operation.operation, 'graphql.operation.name': name }));
      };
      const plugin: Plugin = {
        instrumentation: {
          async request({ request }, handle) {
            const url = new URL(request.url);
            const route = routes.has(url.pathname) ? url.pathname : undefined;
            const method = knownMethods.has(request.method) ? request.method : '_OTHER';
            const parent = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter);
            const span = tracer.startSpan(
              `${method === '_OTHER' ? 'HTTP' : method}${route ? ` ${route}` : ''}`,
              {
                kind: SpanKind.SERVER,
                attributes: defined({
                  [ATTR_HTTP_REQUEST_METHOD]: method,
                  [ATTR_HTTP_ROUTE]: route,
                  [ATTR_URL_PATH]: url.pathname,
                  [ATTR_URL_SCHEME]: url.protocol.replace(':', ''),
                  [ATTR_USER_AGENT_ORIGINAL]: request.headers.get('user-agent') ?? undefined,
                }),
              },
              parent,
            );
            requests.set(request, span);
            await within(span, handle, parent);
          },
          async operation({ request }, wrapped) {
            // Named when execution starts (nameOperation); a request that fails to parse or validate keeps this name.
            const span = tracer.startSpan('GraphQL Operation', { kind: SpanKind.INTERNAL });
            operations.set(request, span);
            await within(span, wrapped);
          },
        },
        onExecute({ args }) {
          nameOperation(args);
          return {
            onExecuteDone({ result }) {
              const [error] = (('errors' in result ? result.errors : undefined) as readonly GraphQLError[] | undefined) ?? [];
              const span = operationSpan(args);
              if (!error || !span) return;
              const code = error.extensions?.code;
              span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' ? code : 'GraphQLError');
              span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
            },
          };
        },
        onSubscribe({ args }) {
          nameOperation(args);
        },
        onResponse({ request, response }) {
          const span = requests.get(request);
          if (!span) return;
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.status);
          if (response.status >= 500) {
            span.setAttribute(ATTR_ERROR_TYPE, String(response.status));
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
        },
      };
      return plugin;
    },

    statements(target: StatementTarget): TraceStatement {
      const base = defined({
        'db.system': 'postgresql',
        'db.name': target.database,
        [ATTR_SERVER_ADDRESS]: target.host,
        [ATTR_SERVER_PORT]: target.port,
        'tms.db.engine': target.engine,
      });
      return (text, run, name) => {
        // Statements outside any span (the webhook worker's polling, maintenance, metrics scrapes) would
        // each be a trace of their own: they are not traced.
        if (!trace.getActiveSpan()) return run();
        const operation = operationOf(text);
        const span = tracer.startSpan(name ?? operation ?? 'SQL', {
          kind: SpanKind.CLIENT,
          attributes: { ...base, ...defined({ 'db.statement': text, 'db.operation': operation, 'tms.db.statement_name': name }) },
        });
        return within(span, run);
      };
    },

    inSpan(name, attributes, run, after) {
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: defined(attributes) });
      return within(span, async () => {
        const result = await run();
        if (after) span.setAttributes(defined(after(result)));
        return result;
      });
    },

    outgoing({ url, method, headers, attributes }, send, outcome) {
      const span = tracer.startSpan(method, {
        kind: SpanKind.CLIENT,
        attributes: defined({
          [ATTR_HTTP_REQUEST_METHOD]: method,
          // Without the query string and credentials (a receiver's token often travels in them).
          [ATTR_URL_FULL]: `${url.origin}${url.pathname}`,
          [ATTR_SERVER_ADDRESS]: url.hostname,
          [ATTR_SERVER_PORT]: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
          ...attributes,
        }),
      });
      const active = trace.setSpan(context.active(), span);
      const carrier = { ...headers };
      propagation.inject(active, carrier);
      return within(span, async () => {
        const result = await send(carrier);
        const { httpStatus, error } = outcome(result);
        if (httpStatus !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, httpStatus);
        if (error !== null) {
          span.setAttribute(ATTR_ERROR_TYPE, httpStatus === null ? 'no_answer' : String(httpStatus));
          span.setStatus({ code: SpanStatusCode.ERROR, message: error });
        }
        return result;
      });
    },

    logFields() {
      const spanContext = trace.getActiveSpan()?.spanContext();
      if (!spanContext || !trace.isSpanContextValid(spanContext)) return null;
      return { trace_id: spanContext.traceId, span_id: spanContext.spanId, trace_flags: `0${spanContext.traceFlags.toString(16)}` };
    },

    shutdown: () => provider.shutdown(),
  };
}
