// A DATABASE_URL with several hosts (decision 522) becomes one URL per host, target_session_attrs read and dropped;
// a URL with one host is left as it was; the password never shows in messages. bench/failover.ts drills the rest.
import { describe, expect, it } from 'vitest';
import { parseHostList } from '../../../src/platform/db/primary-host.ts';
import { redactedUrl } from '../../../src/platform/db/database.ts';

describe('several hosts in DATABASE_URL', () => {
  it('splits the hosts, keeps user, database and other options, and reads target_session_attrs', () => {
    expect(
      parseHostList(
        'postgres://cobro:s3cret@db1:5432,db2:5433/cobro?target_session_attrs=read-write&sslmode=require',
      ),
    ).toEqual({
      urls: [
        'postgres://cobro:s3cret@db1:5432/cobro?sslmode=require',
        'postgres://cobro:s3cret@db2:5433/cobro?sslmode=require',
      ],
      readWrite: true,
    });
    expect(parseHostList('postgresql://db1,db2/cobro')).toEqual({
      urls: ['postgresql://db1/cobro', 'postgresql://db2/cobro'],
      readWrite: false,
    });
  });

  it('leaves a one-host URL as it is', () => {
    const url = 'postgres://cobro@db1:5432/cobro?target_session_attrs=read-write';
    expect(parseHostList(url)).toEqual({ urls: [url], readWrite: false });
  });

  it('masks the password of a several-host URL in messages', () => {
    expect(redactedUrl('postgres://cobro:s3cret@db1:5432,db2:5432/cobro')).toBe(
      'postgres://cobro:***@db1:5432,db2:5432/cobro',
    );
  });
});
