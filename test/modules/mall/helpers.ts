// What several mall test files do the same way.
import type { TestApp } from '../../support/app.ts';

/** The payer pays the mall's checkout with a sandbox test card (Visa, approved, unless `card` says otherwise). */
export function payMall(t: TestApp, id: string, card = '4051 8856 0044 6623') {
  return t.app.inject({
    method: 'POST',
    url: `/gateway/mall/${id}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      method: '1',
      card_number: card,
      expiry: '12/30',
      cvv: '123',
    }).toString(),
  });
}
