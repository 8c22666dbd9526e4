// The only module that reads the system time (STYLE rule 13). Tests and the sandbox move a ManualClock.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

export class ManualClock implements Clock {
  private epochMs: number;

  constructor(start: Date | string = '2026-01-15T15:00:00Z') {
    this.epochMs = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.epochMs);
  }

  advanceMs(deltaMs: number): void {
    if (!Number.isSafeInteger(deltaMs) || deltaMs < 0)
      throw new RangeError('clock only moves forward');
    this.epochMs += deltaMs;
  }

  set(to: Date | string): void {
    this.epochMs = new Date(to).getTime();
  }
}
