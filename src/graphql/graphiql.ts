/** What GraphiQL (GET /graphql in a browser) opens with: a query a newcomer can run as is. */
export const graphiqlDefaultQuery = `# Enter your tenant's API key in the Headers pane below (X-API-Key), then run.
query RecentLoads {
  viewer { slug name }
  loads(first: 10) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges {
      node {
        permalink
        status
        phase
        bolNumber
        tmsUrl
        changedAt
        legs {
          sequence
          carrier { name mcNumber }
          driverName
          stops { sequence type city appointmentStart arrivedAt }
        }
        updates(first: 1) { type occurredAt message city state }
      }
    }
  }
}
`;
