/**
 * Load activity for dashboards (issue 8 point 1): the latest write of the load or any of its
 * children, its newest update and position, and its next stop. Each field is a Prisma selection on
 * the load, so a page of loads reads them in a constant number of statements.
 */
import { builder } from '../../graphql/builder.js';
import { LoadUpdateObject } from '../load-update/graphql.js';
import { StopObject } from '../stop/graphql.js';
import { legOrder, liveOnly, stopOrder, updateOrder } from './queries.js';

interface Location {
  latitude: number;
  longitude: number;
  occurredAt: Date | null;
}

const LocationType = builder.objectRef<Location>('Location').implement({
  description: 'A reported position of a load (from a load update).',
  fields: (t) => ({
    latitude: t.exposeFloat('latitude', { description: 'Latitude.' }),
    longitude: t.exposeFloat('longitude', { description: 'Longitude.' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', nullable: true, description: 'When it was reported in the field.' }),
  }),
});

builder.prismaObjectFields('Load', (t) => ({
  lastActivityAt: t.field({
    type: 'DateTime',
    description:
      'The latest service-clock write of the load or any of its legs, stops and load updates (what `LoadFilter.activitySince` and `ACTIVITY_DESC` use).',
    select: { changedAt: true, activity: { select: { lastActivityAt: true } } },
    // Every load has its activity row (written with the load); a load stored around the service has none yet.
    resolve: (load) => load.activity?.lastActivityAt ?? load.changedAt,
  }),
  lastUpdate: t.field({
    type: LoadUpdateObject,
    nullable: true,
    description: 'The newest load update (by `occurredAt`), or null.',
    select: { updates: { take: 1, orderBy: updateOrder } },
    resolve: (load) => load.updates[0] ?? null,
  }),
  lastLocation: t.field({
    type: LocationType,
    nullable: true,
    description: 'The position of the newest load update (by `occurredAt`) that has one, or null.',
    select: {
      updates: {
        where: { latitude: { not: null }, longitude: { not: null } },
        take: 1,
        orderBy: updateOrder,
        select: { latitude: true, longitude: true, occurredAt: true },
      },
    },
    resolve: (load) => {
      const update = load.updates[0];
      return update ? { latitude: update.latitude!, longitude: update.longitude!, occurredAt: update.occurredAt } : null;
    },
  }),
  nextStop: t.field({
    type: StopObject,
    nullable: true,
    description: 'The first stop (by leg sequence, then stop sequence) without `departedAt`, or null (deleted legs and stops left out).',
    select: { legs: { where: liveOnly, orderBy: legOrder, select: { stops: { where: { ...liveOnly, departedAt: null }, orderBy: stopOrder, take: 1 } } } },
    resolve: (load) => load.legs.find((leg) => leg.stops.length)?.stops[0] ?? null,
  }),
}));
