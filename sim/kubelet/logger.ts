// The logger the simulators accept: pino-compatible, and silent when none is given.

export interface SimLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

const ignore = (): void => {};
export const silentLogger: SimLogger = { info: ignore, warn: ignore, error: ignore, debug: ignore };
