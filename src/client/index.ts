// The typed client lives in packages/client (published as `cobro-client`, docs/client.md); this path stays for
// code inside the repository that imported it from here.
export * from '../../packages/client/src/index.ts';
