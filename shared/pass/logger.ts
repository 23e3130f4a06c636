// The logger a pass and a run write to: the three pino methods they use, so tests can pass a recorder.
export interface PassLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}
