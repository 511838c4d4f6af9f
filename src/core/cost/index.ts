// Cost (issue 20): prices with their source and date, what a task would cost before launch,
// what clusters cost per hour and so far, the per-user index of live clusters, GPU offers.
export { isKnown, formatRate, formatUsd, times, sum, type Price, type PriceAnswer, type UnknownPrice } from './price';
export { PriceBook, SHIPPED, type TypeQuery } from './priceBook';
export { clusterRate, type ClusterRate } from './clusterRate';
export { billedTime, type BilledTime } from './timeline';
export { clusterCost, currentRate, spendOf, type ClusterCost } from './spend';
export { recordEnded, endedClusters, type EndedCluster } from './history';
export { launchPlan, PRICE_REGION, type LaunchPlan, type PricedCandidate } from './candidates';
export { gpuOffers, gpuSummary, type GpuOffer, type GpuQuery } from './gpuCatalog';
export { readIndex, publishWorkspace, otherBilling, indexDir, type WorkspaceIndex, type IndexedCluster } from './userIndex';
export { workspaceCosts, publishCosts, type WorkspaceCosts, type CostedCluster } from './workspaceCosts';
export { skydeckHome } from './home';
export { readSpotCache, writeSpotCache, spotCachePath } from './spotCache';
export { costView, type CostView, type ClusterCostText } from './costView';
export { otherWindows, ownLease, writeLease, removeLease, sweepDead, checkLease, windowsDir, LEASE_RENEW_MS, LEASE_STALE_MS, type WindowLease } from './windowLeases';
export { unguardedClusters, clusterSetKey, becameLastWithBilling, lastWindowMessage, recordLastClose, takeLastClose, lastCloseMessage, lastClosePath, type LastClose, type UnguardedCluster } from './lastWindow';
export { planCandidates, planHeader, planRows, planNotes, planDetail, planSummary, priceSources, candidateLine, cheaperAlternatives } from './planText';
export { SHIPPED_SPOT_NOTE } from './price';
export { gpuChoices, type GpuChoice } from './gpuChoices';
