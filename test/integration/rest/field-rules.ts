/**
 * The field rules every ingestion route shares, generated per field from the contract's table
 * (contract.ts): presence of required-but-nullable fields, null, max lengths at and over the limit,
 * types, enums, date-times, ranges and the permalink suffix. One test per field and rule, so a
 * failure names the exact rule that broke.
 */
import { describe, expect, test } from '../../fixtures.js';
import type { ApiResponse, Api, TestTenant } from '../../helpers/app.js';
import type { ContractField } from './contract.js';

type Body = Record<string, unknown>;

export interface FieldRulesOptions {
  route: string;
  fields: Record<string, ContractField>;
  /** A valid body (all contract fields given) whose parents exist. */
  validBody(api: Api, tenant: TestTenant): Promise<Body>;
  /** Status when a required parent permalink is null: 200 when the body's TMS id names the parent, else 422. */
  nullParentStatus?: Record<string, 200 | 422>;
}

/** Expects a 400 validation_failed whose details name `field`. */
export function expectInvalid(res: ApiResponse, field: string, issue?: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  const detail = (res.body.error.details as { field: string; issue: string }[]).find((d) => d.field === field);
  expect(detail, `details name ${field}: ${JSON.stringify(res.body.error.details)}`).toBeDefined();
  if (issue) expect(detail!.issue).toMatch(issue);
}

/** Expects 200 processed. */
export function expectProcessed(res: ApiResponse) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe('processed');
}

/** A `<id>-<slug>` permalink exactly `length` characters long. */
const permalinkOfLength = (length: number, slug: string) => `${'P'.repeat(length - slug.length - 1)}-${slug}`;

const wrongType = (field: ContractField) => (field.type === 'integer' || field.type === 'number' ? '1' : 12345);

export function describeFieldRules({ route, fields, validBody, nullParentStatus = {} }: FieldRulesOptions) {
  const post = async (api: Api, tenant: TestTenant, change: (body: Body) => void) => {
    const body = await validBody(api, tenant);
    change(body);
    return api.post(route, body);
  };

  describe(`field rules of POST ${route}`, () => {
    test('the valid body with every contract field is processed', async ({ api, tenant }) => {
      const body = await validBody(api, tenant);
      expect(Object.keys(body).sort()).toEqual(Object.keys(fields).sort());
      expectProcessed(await api.post(route, body));
    });

    test('reports every offending field in one 400', async ({ api, tenant }) => {
      const [first, second] = Object.keys(fields).filter((f) => fields[f]!.importance === 'required');
      const res = await post(api, tenant, (body) => {
        delete body[first!];
        body[second!] = { not: 'valid' };
      });
      expectInvalid(res, first!);
      expectInvalid(res, second!);
    });

    for (const [name, field] of Object.entries(fields)) {
      describe(name, () => {
        if (field.importance === 'required') {
          test('is rejected when absent, naming the field', async ({ api, tenant }) => {
            expectInvalid(await post(api, tenant, (b) => delete b[name]), name, /required/);
          });
        } else {
          test('may be left out', async ({ api, tenant }) => {
            expectProcessed(await post(api, tenant, (b) => delete b[name]));
          });
        }

        if (field.type === 'own_permalink') {
          test('is rejected when null', async ({ api, tenant }) => {
            expectInvalid(await post(api, tenant, (b) => (b[name] = null)), name);
          });
        } else if (field.type === 'parent_permalink' && field.importance === 'required') {
          test(`answers ${nullParentStatus[name] ?? 422} when null (the parent is built from its TMS id, if any)`, async ({ api, tenant }) => {
            const res = await post(api, tenant, (b) => (b[name] = null));
            expect(res.status, JSON.stringify(res.body)).toBe(nullParentStatus[name] ?? 422);
            if (res.status === 422) expect(res.body.error).toMatchObject({ code: 'parent_not_found', details: [{ field: name }] });
          });
        } else {
          test('accepts null', async ({ api, tenant }) => {
            expectProcessed(await post(api, tenant, (b) => (b[name] = null)));
          });
        }

        test('is rejected with the wrong JSON type', async ({ api, tenant }) => {
          expectInvalid(await post(api, tenant, (b) => (b[name] = wrongType(field))), name);
        });

        switch (field.type) {
          case 'string':
            test(`accepts ${field.max} characters and rejects ${field.max + 1}`, async ({ api, tenant }) => {
              expectProcessed(await post(api, tenant, (b) => (b[name] = 'x'.repeat(field.max))));
              expectInvalid(await post(api, tenant, (b) => (b[name] = 'x'.repeat(field.max + 1))), name, new RegExp(`at most ${field.max}`));
            });
            break;
          case 'own_permalink':
          case 'permalink':
          case 'parent_permalink':
            test(`accepts ${field.max} characters and rejects ${field.max + 1}`, async ({ api, tenant }) => {
              const atLimit = await post(api, tenant, (b) => (b[name] = permalinkOfLength(field.max, tenant.slug)));
              // A parent permalink passes validation and is then looked up: no such parent.
              if (field.type === 'parent_permalink') expect(atLimit.body.error?.code, JSON.stringify(atLimit.body)).toBe('parent_not_found');
              else expectProcessed(atLimit);
              expectInvalid(
                await post(api, tenant, (b) => (b[name] = permalinkOfLength(field.max + 1, tenant.slug))),
                name,
                new RegExp(`at most ${field.max}`),
              );
            });
            test('must end with -<tenant slug>', async ({ api, tenant, otherTenant }) => {
              for (const value of ['P1', `P1-${otherTenant.slug}`, `P1${tenant.slug}`, `-${tenant.slug}`, `P1-${tenant.slug}-x`]) {
                expectInvalid(await post(api, tenant, (b) => (b[name] = value)), name, new RegExp(tenant.slug));
              }
            });
            break;
          case 'company':
            test('equal to the tenant slug is accepted; any other slug answers 403 tenant_mismatch', async ({ api, tenant, otherTenant }) => {
              expectProcessed(await post(api, tenant, (b) => (b[name] = tenant.slug)));
              for (const other of [otherTenant.slug, tenant.slug.toUpperCase(), `${tenant.slug} `]) {
                const res = await post(api, tenant, (b) => (b[name] = other));
                expect(res.status).toBe(403);
                expect(res.body.error).toMatchObject({ code: 'tenant_mismatch', details: [{ field: 'company_permalink' }] });
              }
            });
            break;
          case 'integer':
            test('accepts integers from 1 and rejects 0, negatives, fractions and numbers past int4', async ({ api, tenant }) => {
              for (const ok of [1, 2, 2_147_483_647]) expectProcessed(await post(api, tenant, (b) => (b[name] = ok)));
              for (const bad of [0, -1, 1.5, 2_147_483_648]) expectInvalid(await post(api, tenant, (b) => (b[name] = bad)), name);
            });
            break;
          case 'number':
            test(`accepts ${field.min}..${field.max} and rejects values outside`, async ({ api, tenant }) => {
              for (const ok of [field.min, 0, 12.345678, field.max]) expectProcessed(await post(api, tenant, (b) => (b[name] = ok)));
              for (const bad of [field.min - 0.0001, field.max + 0.0001]) expectInvalid(await post(api, tenant, (b) => (b[name] = bad)), name);
            });
            break;
          case 'enum':
            test(`accepts exactly ${field.values.join(', ')}`, async ({ api, tenant }) => {
              for (const ok of field.values) expectProcessed(await post(api, tenant, (b) => (b[name] = ok)));
              for (const bad of [field.values[0]!.toUpperCase(), 'other', '']) expectInvalid(await post(api, tenant, (b) => (b[name] = bad)), name);
            });
            break;
          case 'datetime':
            test('accepts ISO 8601 date-times with Z or an offset', async ({ api, tenant }) => {
              for (const ok of ['2026-11-23T10:00:00Z', '2026-11-23T10:00:00.123Z', '2026-11-23T04:00:00-06:00']) {
                expectProcessed(await post(api, tenant, (b) => (b[name] = ok)));
              }
            });
            test('rejects date-times without a zone, dates, impossible days and years beyond 0001..9999', async ({ api, tenant }) => {
              for (const bad of [
                '2026-11-23T10:00:00',
                '2026-11-23',
                '2026-02-30T10:00:00Z',
                'yesterday',
                '0000-06-01T00:00:00Z',
                '0001-01-01T00:00:00+01:00',
              ]) {
                expectInvalid(await post(api, tenant, (b) => (b[name] = bad)), name);
              }
            });
            break;
          case 'timezone':
            test('accepts IANA zone names and rejects unknown names and more than 64 characters', async ({ api, tenant }) => {
              for (const ok of ['America/Chicago', 'Europe/Berlin', 'UTC']) expectProcessed(await post(api, tenant, (b) => (b[name] = ok)));
              for (const bad of ['Mars/Olympus_Mons', 'Central Time', `America/${'X'.repeat(57)}`]) {
                expectInvalid(await post(api, tenant, (b) => (b[name] = bad)), name);
              }
            });
            break;
        }
      });
    }

    const firstString = Object.entries(fields).find(([, f]) => f.type === 'string')![0];
    test(`a NUL character is a 400 naming the field (${firstString}), not a failed write`, async ({ api, tenant }) => {
      expectInvalid(await post(api, tenant, (b) => (b[firstString] = 'a\u0000b')), firstString, /NUL/);
    });
  });
}
