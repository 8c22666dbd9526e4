// How a Oneclick inscription delete that threw is read (decisions 990, 1065, 1105). The SDK's error message is the
// axios error's ("AxiosError: Request failed with status code 429", "AxiosError: timeout of 10000ms exceeded",
// "AxiosError: socket hang up") followed by Transbank's error_message.
//   gone:    404, the inscription is not there (an earlier try deleted it and its answer was lost): done;
//   busy:    Transbank limiting the rate (429) or failing (5xx), or no answer once the request may have reached it
//            (a timeout, the connection reset or closed mid-request). A delete is safe to send again: a second
//            delete of an inscription already deleted answers 404, which is `gone`. Retried with the backoff, up to
//            cardRemovalBusyTriesMax;
//   refused: any other answer (401 keys refused, 4xx) and a request that never reached Transbank (its host unknown,
//            the connection refused, a certificate refused: a configuration to mend), up to cardRemovalTriesMax.
export type RemovalFailureKind = 'gone' | 'busy' | 'refused';

const noAnswer = /timeout of \d+ms exceeded|socket hang up|ECONNRESET|ETIMEDOUT|ECONNABORTED|EPIPE/;

export function removalFailureKind(message: string): RemovalFailureKind {
  if (/status code 404\b/.test(message)) return 'gone';
  if (/status code (429|5\d\d)\b/.test(message)) return 'busy';
  if (/status code \d{3}\b/.test(message)) return 'refused';
  return noAnswer.test(message) ? 'busy' : 'refused';
}
