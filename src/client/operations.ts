// Moved to packages/client/src/operations.ts; re-exported for imports inside the repository.
export * from '../../packages/client/src/operations.ts';
