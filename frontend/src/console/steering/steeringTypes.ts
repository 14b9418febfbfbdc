/**
 * Types and paths of the steering console (issue 33): thin aliases of the generated API
 * types. `status` is a `qoe-steer` daemon's `GET /v1/status`, checked by the backend
 * against the contract before it reaches the browser.
 */
import { API_BASE } from '../../api';
import type { Complete } from '../../api';
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

export type SteeringService = Complete<Schemas['SteeringService']>;
export type SteeringState = Complete<Schemas['SteeringState']>;
export type StatusDocument = SteeringState['status'];
export type PathState = StatusDocument['paths'][number];
export type Measurement = NonNullable<PathState['measurement']>;
export type DirectionKpis = Measurement['upstream'];
export type ClassState = StatusDocument['classes'][number];
export type DirectionBounds = ClassState['bounds']['upstream'];
export type SteerEvent = StatusDocument['events'][number];
export type Alarm = StatusDocument['alarms'][number];

export const DIRECTIONS = ['upstream', 'downstream'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const DIRECTION_TEXT: Record<Direction, string> = {
  upstream: 'upstream (client → server)',
  downstream: 'downstream (server → client)',
};

export const steeringServicesPath = (): string => `${API_BASE}/steering-services/`;
export const steeringServicePath = (id: number): string => `${API_BASE}/steering-services/${id}/`;
/** `GET` → {@link SteeringState}; 502/504 `{detail, failure, field?}` when the daemon fails. */
export const steeringStatePath = (id: number): string => `${API_BASE}/steering-services/${id}/state/`;
/** The console polls a service's state this often (ms). */
export const STATE_POLL_MS = 2000;
