#!/usr/bin/env node
// Thin launcher: the CLI is TypeScript run by Node's own type stripping (Node 24, pinned as a dev dependency).
import '../src/cli/main.ts';
