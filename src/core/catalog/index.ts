// The instance catalog: pure data and choice; fetching lives with each cloud (SDKs load lazily).
export type { InstanceType, CatalogFile } from './types';
export { chooseType, fittingTypes, describeShape, DEFAULT_SHAPE, type ShapeRequest } from './select';
export { readCatalog, writeCatalog, withPrices, catalogPath, defaultCatalogDir, cachedCatalog, CATALOG_MAX_AGE_MS, type CatalogSource } from './cache';
export { AWS_SHIPPED, awsShippedPrice } from './awsShipped';
