// Every REST route, in one list (the router and the OpenAPI document both read it).
import { carrierRoutes } from './domain/carrier/rest.js';
import { loadRoutes } from './domain/load/rest.js';
import { loadLegRoutes } from './domain/load-leg/rest.js';
import { stopRoutes } from './domain/stop/rest.js';
import { loadUpdateRoutes } from './domain/load-update/rest.js';
import type { Route } from './http/route.js';

export const ingestionRoutes: readonly Route[] = [...carrierRoutes, ...loadRoutes, ...loadLegRoutes, ...stopRoutes, ...loadUpdateRoutes];
