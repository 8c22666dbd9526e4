// The payer's card and bank fields, one markup for the sale's, the mall's and the card enrolment's forms, and what
// went wrong with them tied to each field for a screen reader (decision 1135): a wrong field is aria-invalid and
// described by its own message, and the first wrong one in the form's order holds the focus when the page opens
// (`autofocus`: the checkout sends no script). The card fields carry the autocomplete tokens a phone's keyboard
// and a password manager fill from, and a numeric keyboard.
import { html, type Html } from './html.ts';
import type { FieldName, FormProblem } from './form-problems.ts';

/** The box of problems above the form; a field's own message carries the id its field points at. */
export function problemBox(problems: readonly FormProblem[]): Html {
  return problems.length === 0
    ? html``
    : html`<div class="error" role="alert">${problems.map((p) =>
        p.field === null
          ? html`<div>${p.text}</div>`
          : html`<div id="${messageId(p.field)}">${p.text}</div>`,
      )}</div>`;
}

function messageId(field: FieldName): string {
  return `problem-${field}`;
}

/** The attributes a field takes from the problems: none when it is right. */
function stateOf(
  field: FieldName,
  problems: readonly FormProblem[],
  first: FieldName | null,
): Html {
  if (!problems.some((p) => p.field === field)) return html``;
  return html` aria-invalid="true" aria-describedby="${messageId(field)}"${field === first ? html` autofocus` : null}`;
}

/** The first field of `order` that has a problem: the one the page focuses. */
function firstWrong(
  order: readonly FieldName[],
  problems: readonly FormProblem[],
): FieldName | null {
  return order.find((f) => problems.some((p) => p.field === f)) ?? null;
}

/** Card number, expiry and CVV, and the instalments select when the method has a `range` of them. */
export function cardFields(
  problems: readonly FormProblem[],
  range: readonly [number, number] | null = null,
): Html {
  const first = firstWrong(['card_number', 'expiry', 'cvv', 'installments'], problems);
  const at = (field: FieldName) => stateOf(field, problems, first);
  const installments =
    range === null
      ? null
      : html`<label for="installments">Cuotas</label><select id="installments" name="installments"${at('installments')}>${Array.from(
          { length: range[1] - range[0] + 1 },
          (_, i) => html`<option value="${range[0] + i}">${range[0] + i} cuotas</option>`,
        )}</select>`;
  return html`<label for="card_number">Número de tarjeta</label><input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" maxlength="23" required${at('card_number')}>
<div class="row"><div><label for="expiry">Vencimiento (MM/AA)</label><input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/AA" maxlength="7" required${at('expiry')}></div>
<div><label for="cvv">CVV</label><input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required${at('cvv')}></div></div>
${installments}`;
}

export interface BankFieldsState {
  readonly banks: ReadonlyArray<{ readonly code: string; readonly name: string }>;
  /** The bank shown chosen, if any. */
  readonly bank: string | null;
  /** The RUT shown in its field: the payer's the merchant fixed, else empty. */
  readonly rut: string;
  readonly rutFixed: boolean;
}

/** The bank, the payer's RUT and the bank password. */
export function bankFields(problems: readonly FormProblem[], state: BankFieldsState): Html {
  const first = firstWrong(['bank', 'rut', 'password'], problems);
  const at = (field: FieldName) => stateOf(field, problems, first);
  const options = state.banks.map(
    (b) =>
      html`<option value="${b.code}"${state.bank === b.code ? html` selected` : null}>${b.name}</option>`,
  );
  return html`<label for="bank">Banco</label><select id="bank" name="bank"${at('bank')}>${options}</select>
<label for="rut">RUT</label><input id="rut" name="rut" value="${state.rut}" placeholder="11.111.111-1" maxlength="12" required${state.rutFixed ? html` readonly` : null}${at('rut')}>
<label for="password">Clave</label><input id="password" name="password" type="password" autocomplete="off" maxlength="64" required${at('password')}>`;
}
