// What a bank account number may be (decision 1175), one rule for every place one is taken: a payout's
// `accountbank_num`, a marketplace client's `bank.num`, `cobro accounts set-bank --num` and
// `cobro refunds set-bank-details --num`. Every number the seed, the reference and its samples send is ASCII digits
// (Chilean accounts, Peru's 20-digit CCI, a YAPE or Venezuelan mobile number); Chilean banks print some with dashes
// between digit groups (`00-123-45678-09`), which a merchant copies as printed (decision 021 keeps them). A sign, a
// decimal point, an exponent, a space, a letter or a fullwidth or other non-ASCII digit makes no account a bank can
// pay: refused at the edge, not discovered when the bank rejects the payout. Leading zeros stay (the field remains
// a string). Lengths are the fields' own bounds, checked where they are.
const accountNumberShape = /^[0-9]+(?:-[0-9]+)*$/;

/** True when the text, as given (callers trim first where they trim), is an account number. */
export function isBankAccountNumber(text: string): boolean {
  return accountNumberShape.test(text);
}
