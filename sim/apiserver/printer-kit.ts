// Building blocks of server-side printing: column definitions, ages as kubectl renders them.
import { objectAt, stringAt, type Json, type JsonObject } from './json-value.ts';

export interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** duration.HumanDuration, as kubectl and the printers render ages. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${Math.trunc(days / 365)}y` : `${Math.trunc(days / 365)}y${days % 365}d`;
  return `${Math.trunc(days / 365)}y`;
}

export function age(obj: JsonObject, now: number): string {
  const ts = stringAt(objectAt(obj, 'metadata'), 'creationTimestamp');
  return ts ? humanDuration(now - Date.parse(ts)) : '<unknown>';
}

export const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};
export const col = (name: string, description: string, priority = 0, type = 'string'): Column => ({ name, type, format: '', description, priority });
export const AGE = col('Age', 'CreationTimestamp is a timestamp representing the server time when this object was created.');


export interface Printer {
  columns: Column[];
  cells(obj: JsonObject, now: number): Json[];
}
