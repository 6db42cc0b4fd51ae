// A typed client for the REST/JSON face of hustings.v1.GameService.
//
// Routes are read from the proto's google.api.http annotations carried by the generated
// descriptors (the same rules the server routes by), so this file knows no URL of its own.
// Messages travel in protobuf's canonical JSON mapping (toJson / fromJson of protobuf-es).

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
  ) {}

  async call<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    input: MessageInitShape<I>,
    seatToken?: string,
  ): Promise<MessageShape<O>> {
    const route = routeOf(method);
    const json = toJson(method.input, create(method.input, input)) as JsonObject;
    const path = route.template.replace(VARIABLE, (_, field: string) => {
      const key = toCamel(field);
      const value = json[key];
      delete json[key];
      return encodeURIComponent(String(value ?? ""));
    });
    const url = new URL(path, this.baseUrl);
    const init: RequestInit = { method: route.verb, headers: { Accept: "application/json" } };
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
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (!response.ok) {
      const status = parsed as { code?: number; message?: string; details?: { reason?: string }[] };
      throw new HustingsError(response.status, status.code ?? 0, status.details?.[0]?.reason ?? "", status.message ?? text);
    }
    return fromJson(method.output, parsed as JsonValue, { ignoreUnknownFields: true });
  }
}
