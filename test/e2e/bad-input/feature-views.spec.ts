/** Bad input on hosted feature layer views: createService isView, a view's addToDefinition, sources, and the source kept. */
import { viewFixture } from '../../support/view-service';
import { caseTable, fx, routeTables, t, useFixture } from './support';
import { VIEW_CASES, VIEW_ROUTES, viewFx } from './tables';

describe('bad input: feature views', () => {
  useFixture();
  beforeAll(async () => {
    const f = await viewFixture(t.base, fx.owner, 4);
    Object.assign(viewFx, { source: f.source.name, view: f.view.name, sourceItem: f.source.itemId });
  }, 60_000);
  routeTables(VIEW_ROUTES);
  describe('missing and malformed parameters', () => {
    caseTable(VIEW_CASES);
  });
});
