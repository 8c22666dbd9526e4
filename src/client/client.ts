// Moved to packages/client/src/client.ts; re-exported for imports inside the repository.
export * from '../../packages/client/src/client.ts';
