// State machines as data (STYLE rule 9): a transitions table, and the two checks every machine needs.
import assert from 'node:assert/strict';

export interface StateMachine<S extends string> {
  can(from: S, to: S): boolean;
  /** Asserts a move the code is about to make; callers check the domain condition first. */
  assertMove(from: S, to: S): void;
}

export function stateMachine<S extends string>(
  label: string,
  transitions: Readonly<Record<S, readonly S[]>>,
): StateMachine<S> {
  const can = (from: S, to: S) => transitions[from].includes(to);
  return {
    can,
    assertMove(from, to) {
      assert.ok(can(from, to), `${label} cannot move from ${from} to ${to}`);
    },
  };
}
