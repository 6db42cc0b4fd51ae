// A typed client for the REST/JSON face of hustings.v1.GameService.
//
// Routes are read from the proto's google.api.http annotations carried by the generated
// descriptors (the same rules the server routes by), so this file knows no URL of its own.
// Messages travel in protobuf's canonical JSON mapping (toJson / fromJson of protobuf-es).
//
// Retries: every call is one logical call with one request id (a request message that has a
// request_id field and leaves it empty gets a fresh random one), sent again unchanged on every
// attempt. Only HTTP 503 (UNAVAILABLE), 504 (DEADLINE_EXCEEDED), a network error or an attempt
// that ran out of time are retried, after a pause with exponential backoff and full jitter;
// anything else (409 ABORTED on a stale version, 400 an illegal move) is the caller's to handle.

import {
  create,
  fromJson,
  getOption,
  hasOption,
  toJson,
  type DescMessage,
  type DescMethodUnary,
  type JsonObject,
  type JsonValue,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { http } from "./gen/google/api/annotations_pb.js";

/** A refused request: the HTTP status and the google.rpc.Status with its ErrorInfo reason. */
export class HustingsError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(`${reason || httpStatus}: ${message}`);
    this.name = "HustingsError";
  }
}

/** How one logical call is retried: bounded attempts, each with its own deadline, and a budget. */
export interface RetryPolicy {
  /** Attempts at most, the first included (1: never retry). */
  maxAttempts: number;
  /** Each attempt's own deadline. */
  attemptTimeoutMs: number;
  /** The whole call, attempts and pauses, ends within this. */
  budgetMs: number;
  /** The cap of the first pause; each later cap is `multiplier` times the one before. */
  firstBackoffMs: number;
  /** No pause is longer than this. */
  maxBackoffMs: number;
  multiplier: number;
}

/** Six attempts of at most 10 s each, within 30 s, pauses from 50 ms to 2 s. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 6,
  attemptTimeoutMs: 10_000,
  budgetMs: 30_000,
  firstBackoffMs: 50,
  maxBackoffMs: 2_000,
  multiplier: 2,
};

// The statuses after which the same request may still succeed: the replica or the store could
// not answer (or the answer was lost), which says nothing about the request itself.
const RETRY_HTTP_STATUSES = new Set([503, 504]);

/** Full jitter: a pause drawn uniformly from zero to the capped exponential. */
function backoffMs(policy: RetryPolicy, retry: number, random: () => number): number {
  const cap = Math.min(policy.maxBackoffMs, policy.firstBackoffMs * policy.multiplier ** retry);
  return random() * cap;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A fresh request id for one logical call (random, so that nobody can guess a join's). */
export function newRequestId(): string {
  return globalThis.crypto.randomUUID().replaceAll("-", "");
}

interface Route {
  verb: string;
  template: string;
  body: string;
}

function routeOf(method: DescMethodUnary): Route {
  if (!hasOption(method, http)) {
    throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http rule`);
  }
  const rule = getOption(method, http);
  if (rule.pattern.case === undefined || rule.pattern.case === "custom") {
    throw new Error(`${method.name}: unsupported HTTP pattern`);
  }
  return { verb: rule.pattern.case.toUpperCase(), template: rule.pattern.value, body: rule.body };
}

const VARIABLE = /\{([A-Za-z_][A-Za-z0-9_.]*)(?:=[^}]*)?\}/g;

function toCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Calls GameService over HTTP: `await client.call(GameService.method.joinGame, {...})`. */
export class HustingsRest {
  constructor(
    readonly baseUrl: string,
    readonly fetchImpl: typeof fetch = fetch,
    readonly retry: RetryPolicy = DEFAULT_RETRY,
    readonly random: () => number = Math.random,
  ) {}

  /** One logical call, retried under one request id (see RetryPolicy); throws HustingsError. */
  async call<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    input: MessageInitShape<I>,
    seatToken?: string,
  ): Promise<MessageShape<O>> {
    const message = create(method.input, input);
    const requestId = method.input.fields.find((f) => f.name === "request_id");
    if (requestId !== undefined && requestId.fieldKind === "scalar" && !(message as Record<string, unknown>)[requestId.localName]) {
      (message as Record<string, unknown>)[requestId.localName] = newRequestId();
    }
    const policy = this.retry;
    const deadline = Date.now() + policy.budgetMs;
    for (let attempt = 0; ; attempt++) {
      const remaining = deadline - Date.now();
      try {
        return await this.send(method, message, seatToken, Math.max(1, Math.min(policy.attemptTimeoutMs, remaining)));
      } catch (error) {
        const pause = backoffMs(policy, attempt, this.random);
        if (!retryable(error) || attempt + 1 >= policy.maxAttempts || Date.now() + pause >= deadline) throw error;
        await sleep(pause);
      }
    }
  }

  /** One attempt: one HTTP request under its own deadline. */
  private async send<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    message: MessageShape<I>,
    seatToken: string | undefined,
    timeoutMs: number,
  ): Promise<MessageShape<O>> {
    const route = routeOf(method);
    const json = toJson(method.input, message) as JsonObject;
    const path = route.template.replace(VARIABLE, (_, field: string) => {
      const key = toCamel(field);
      const value = json[key];
      delete json[key];
      return encodeURIComponent(String(value ?? ""));
    });
    const url = new URL(path, this.baseUrl);
    const init: RequestInit = {
      method: route.verb,
      headers: { Accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    };
    const headers = init.headers as Record<string, string>;
    if (seatToken) headers["Authorization"] = `Bearer ${seatToken}`;
    if (route.body === "*") {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(json);
    } else {
      for (const [key, value] of Object.entries(json)) {
        for (const item of Array.isArray(value) ? value : [value]) {
          url.searchParams.append(key, String(item as JsonValue));
        }
      }
    }
    const response = await this.fetchImpl(url, init);
    const text = await response.text();
    if (!response.ok) {
      // A balancer in front of the service may answer an error in plain text.
      const status = (parseOrNull(text) ?? {}) as { code?: number; message?: string; details?: { reason?: string }[] };
      throw new HustingsError(response.status, status.code ?? 0, status.details?.[0]?.reason ?? "", status.message ?? text);
    }
    const parsed: unknown = text ? JSON.parse(text) : {};
    return fromJson(method.output, parsed as JsonValue, { ignoreUnknownFields: true });
  }
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** A 503 or 504, a network error (fetch's TypeError) or an attempt that ran out of time. */
function retryable(error: unknown): boolean {
  if (error instanceof HustingsError) return RETRY_HTTP_STATUSES.has(error.httpStatus);
  if (error instanceof TypeError) return true;
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}
