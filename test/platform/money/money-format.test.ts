// One money formatter (Intl puts a no-break space after S/) for the checkout and the dashboard (issue 32): each currency as its country writes it.
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../../src/platform/money/money-format.ts';
import { formatMoney as checkoutMoney } from '../../../src/checkout/html.ts';
import { formatMoney as dashboardMoney } from '../../../src/dashboard/format.ts';

describe('formatMoney', () => {
  it('writes CLP as Chile does and PEN as Peru does', () => {
    expect(formatMoney(12500n, 'CLP')).toBe('$12.500');
    expect(formatMoney(999999999999999n, 'CLP')).toBe('$999.999.999.999.999');
    expect(formatMoney(12550n, 'PEN')).toBe('S/\u00a0125.50');
    expect(formatMoney(123456705n, 'PEN')).toBe('S/\u00a01,234,567.05');
    expect(formatMoney(-12550n, 'PEN')).toBe('-S/\u00a0125.50');
    expect(formatMoney(5n, 'PEN')).toBe('S/\u00a00.05');
    expect(formatMoney(123450n, 'VES')).toMatch(/^Bs\.S?\s?1\.234,50$/);
  });

  it('is the same function on the checkout and the dashboard', () => {
    expect(checkoutMoney).toBe(formatMoney);
    expect(dashboardMoney).toBe(formatMoney);
  });
});
