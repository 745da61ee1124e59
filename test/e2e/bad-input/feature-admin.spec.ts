/** Bad input on the feature service admin routes, the feature resource and related records. */
import { createRelatedService } from '../../support/related-service';
import { caseTable, fx, routeTables, t, useFixture } from './support';
import { FEATURE_ADMIN_CASES, FEATURE_ADMIN_ROUTES, featureFx } from './tables';

describe('bad input: feature admin', () => {
  useFixture();
  beforeAll(async () => {
    featureFx.name = (await createRelatedService(t.base, fx.owner)).name;
  });
  routeTables(FEATURE_ADMIN_ROUTES);
  describe('missing and malformed parameters', () => caseTable(FEATURE_ADMIN_CASES));
});
