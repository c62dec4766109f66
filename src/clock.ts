// The one source of the current time outside the renderer: services, middleware and the CLI read
// it through a Clock so that tests can move time by hand.
export interface Clock {
  /** ms since epoch */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
