// AWS spot prices from DescribeSpotPriceHistory (moto), cached with their time, read by the
// price book marked with that source and date; with the API failing, "unknown" (never 0).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isKnown, PriceBook, readSpotCache } from '../../../src/core/cost';
import { refreshAwsSpot } from '../../../src/core/cost/spotRefresh';
import { staticProviders } from '../../../src/core/clouds/provider';
import { skipWithoutMoto } from '../../support/moto';
import { REGION, startBed, type AwsBed } from './helpers';

describe('aws: spot prices (DescribeSpotPriceHistory on moto)', function () {
  this.timeout(120_000);
  let bed: AwsBed;

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
  });
  after(async () => bed?.close());

  it('fetches, caches per region with the answer\'s time, and the price book says where it came from', async () => {
    const dir = path.join(bed.dir, 'catalog');
    const book = new PriceBook(dir);
    const q = { cloud: 'aws', region: REGION, type: 'm6i.large', spot: true };
    assert.ok(!isKnown(book.nodePrice(q)), 'nothing cached yet: unknown');
    const why = await refreshAwsSpot({ providers: staticProviders(bed.provider()) }, REGION, ['m6i.large', 't3.micro'], dir);
    assert.equal(why, undefined);
    const cached = readSpotCache(dir, REGION);
    assert.ok(cached?.prices['m6i.large'], JSON.stringify(cached));
    const p = book.nodePrice(q);
    assert.ok(isKnown(p), JSON.stringify(p));
    // moto answers a fixed price and timestamp for every type and zone.
    assert.equal(p.usdPerHour, 0.00001);
    assert.equal(p.source, 'aws DescribeSpotPriceHistory');
    assert.equal(p.asOf, '2006-01-02');
  });

  it('an API that cannot be reached is a reason, not a price', async () => {
    const dir = path.join(bed.dir, 'catalog-broken');
    const why = await refreshAwsSpot({ providers: staticProviders(bed.provider({ endpoint: 'http://127.0.0.1:9' })) }, REGION, ['m6i.large'], dir);
    assert.match(why ?? '', /AWS spot prices for us-east-1/);
    assert.ok(!isKnown(new PriceBook(dir).nodePrice({ cloud: 'aws', region: REGION, type: 'm6i.large', spot: true })));
  });
});
