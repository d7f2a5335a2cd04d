/**
 * The load board's GraphQL documents, as the benchmark sends them (`run.ts`) and as the test that the
 * board never leaves the SQL load page reads them (test/integration/graphql/load-page-fallback.test.ts).
 */

/** The board's selection: each load with its legs, carriers, stops and latest update (and the count, unless told not). */
const boardSelection = (totalCount = true) => /* GraphQL */ `
    ${totalCount ? 'totalCount' : ''}
    pageInfo { hasNextPage endCursor }
    edges { node {
      permalink tmsId status phase customerName bolNumber poNumber tmsUrl changedAt
      legs {
        permalink sequence driverName driverPhone truckNumber trailerNumber
        carrier { permalink name mcNumber scac }
        stops { permalink sequence type locationName city state appointmentStart appointmentEnd arrivedAt departedAt }
      }
      updates(first: 1) { type occurredAt status phase latitude longitude city state message }
    } }`;

/** The board: the tenant's 50 newest loads (with or without `totalCount`: bench/postgraphile.ts compares both). */
export const loadBoard = (totalCount = true) => `query LoadBoard { loads(first: 50) { ${boardSelection(totalCount)} } }`;

/** The load-board documents: the issue's board, the README's dashboard (issue 8's order and filters), and a search (issue 21). */
export const boardQueries = [
  { scenario: 'load-board', label: 'load board', document: loadBoard() },
  {
    scenario: 'load-board-dashboard',
    label: 'dashboard (ACTIVITY_DESC, activitySince, city)',
    document: `query LoadBoard { loads(first: 50, orderBy: ACTIVITY_DESC, filter: { activitySince: "${new Date(Date.now() - 6 * 3_600_000).toISOString()}", city: "chicago" }) { ${boardSelection()} } }`,
  },
  {
    scenario: 'load-board-search',
    // A reference fragment: bench/board-seed.ts's loads B4242 and B42420–B42429 (their customer reference, BOL and PO).
    label: 'search (filter: { search: "B4242" })',
    document: `query LoadBoard { loads(first: 50, filter: { search: "B4242" }) { ${boardSelection()} } }`,
  },
] as const;
