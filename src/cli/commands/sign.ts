import { computeSign, queryParams } from '../../platform/auth/sign.ts';
import { fail, ok, stringOption, stringsOption, type Command } from '../command.ts';

export const signCommand: Command = {
  name: 'sign',
  summary: 'Print the Sign header for a request (for curl users)',
  usage:
    "cobro sign --token PRIVATE --path /api/x [--body '{\"a\":1}' | --query 'a=b&c=d' [--query e=f ...]]",
  options: {
    token: {
      type: 'string',
      valueName: 'PRIVATE',
      description: "the account's private token (required)",
    },
    path: {
      type: 'string',
      valueName: 'PATH',
      description:
        'the request path, such as /api/transaction; a query string after ? is signed as --query signs it (required)',
    },
    body: {
      type: 'string',
      valueName: 'JSON',
      description: 'the JSON body of a POST, PUT or PATCH, exactly as sent',
    },
    query: {
      type: 'string',
      valueName: 'QUERY',
      description:
        'the query string of a GET or DELETE (a=b&c=d); may be repeated, the parts joined with & in the order given',
      repeatable: true,
    },
  },
  examples: [
    `cobro sign --token "$PRIVATE" --path /api/transaction --body '{"email":"a@b.cl","order":"1001","subject":"Pedido 1001","amount":5000,"payment":1}'`,
    `cobro sign --token "$PRIVATE" --path /api/wallet/list --query 'page=1&per_page=10'`,
    `cobro sign --token "$PRIVATE" --path /api/wallet/list --query page=1 --query per_page=10`,
    `curl -H "Authorization: Bearer $PUBLIC" -H "Sign: $(cobro sign --token "$PRIVATE" --path /api/account)" http://localhost:8080/api/account`,
  ],
  needsDb: false,
  async run(_ctx, args) {
    const token = stringOption(args, 'token');
    const path = stringOption(args, 'path');
    if (token === undefined || path === undefined)
      return fail('--token and --path are required', 2);
    const body = stringOption(args, 'body');
    // A query written into --path is the request's query: signed as --query would sign it, never dropped.
    const mark = path.indexOf('?');
    const inPath = mark < 0 ? undefined : path.slice(mark + 1);
    // Every --query given, in order: `--query a=1 --query a=2` is the query `a=1&a=2`, not the last one alone.
    const parts = stringsOption(args, 'query');
    const given = parts.length === 0 ? undefined : parts.map((q) => q.replace(/^\?/, '')).join('&');
    if (inPath !== undefined && given !== undefined)
      return fail('give the query in --path or in --query, not both', 2);
    const query = given ?? inPath;
    if (body !== undefined && query !== undefined)
      return fail('give --body or a query, not both', 2);
    let params: Record<string, unknown> = {};
    if (body !== undefined) {
      try {
        const parsed: unknown = JSON.parse(body);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
          return fail('--body must be a JSON object', 2);
        params = parsed as Record<string, unknown>;
      } catch {
        return fail('--body is not valid JSON', 2);
      }
    } else if (query !== undefined) {
      params = queryParams(query);
    }
    return ok(computeSign(token, mark < 0 ? path : path.slice(0, mark), params));
  },
};
