/**
 * The factor registry as `GET /api/v1/factors/` serves it, for the editor tests. The JSON is
 * generated from `netem_profile.catalog()` by `scripts/factor-catalog.py write`; `make lint`
 * fails when it drifts from the registry.
 */
import type { FactorCatalog } from '../../api';
import catalog from '../../test/factor-catalog.json';

export const FACTOR_CATALOG = catalog as FactorCatalog;
