// How a Oneclick inscription delete that threw is read (decisions 990, 1065, 1105, 1210), from what Transbank
// answered or the code of why nothing came (transbank-failure.ts reads them from the SDK's error):
//   gone:    404, the inscription is not there (an earlier try deleted it and its answer was lost): done;
//   busy:    Transbank limiting the rate (429) or failing (5xx), or no answer at all: the request never reached it
//            (connection refused, host unknown or not resolved, no route: Transbank down at the TCP level looks the
//            same as a wrong address) or its answer never came (a timeout, the connection reset or closed). Transbank
//            did not refuse, and a delete is safe to send again: a second delete of an inscription already deleted
//            answers 404, which is `gone`. Retried with the backoff, up to cardRemovalBusyTriesMax;
//   refused: any other answer (401 keys refused, 4xx), and any other failure (a certificate refused: a
//            configuration to mend), up to cardRemovalTriesMax.
import { transbankFailure } from '../../platform/processors/transbank-failure.ts';

export type RemovalFailureKind = 'gone' | 'busy' | 'refused';

export function removalFailureKind(error: unknown): RemovalFailureKind {
  const failure = transbankFailure(error);
  switch (failure.kind) {
    case 'answered':
      if (failure.status === 404) return 'gone';
      return failure.status === 429 || (failure.status >= 500 && failure.status <= 599)
        ? 'busy'
        : 'refused';
    case 'unanswered':
      return 'busy';
    case 'other':
      return 'refused';
    default: {
      const never: never = failure;
      return never;
    }
  }
}
