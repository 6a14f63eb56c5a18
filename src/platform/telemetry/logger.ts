// What the service logs through, below the HTTP layer: the methods of pino's logger, which Fastify's
// application and request loggers are, so the domain and the workers take either without knowing
// of Fastify.

/** Fields to log and a message, or a message alone. */
export interface LogMethod {
  (fields: object, message?: string): void;
  (message: string): void;
}

export interface Logger {
  error: LogMethod;
  warn: LogMethod;
  info: LogMethod;
  debug: LogMethod;
}
