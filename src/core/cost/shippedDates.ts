// When the shipped price tables (src/core/catalog/*Shipped.ts) were written: the figures are
// list prices as read then, so each shipped price carries this date. Update with the tables.
export const SHIPPED_AS_OF: Record<string, string> = {
  aws: '2026-11-30',
  gcp: '2026-11-30',
  azure: '2026-11-30',
};

/**
 * Root disk, USD per GB-month, billed while a node is stopped too (the instance is not):
 * AWS gp3, GCP pd-balanced, Azure Premium SSD (P-tier, per provisioned GB, approximate),
 * us-east-1 / us-central1 / eastus list prices.
 */
export const DISK_USD_PER_GB_MONTH: Record<string, number> = { aws: 0.08, gcp: 0.1, azure: 0.15 };

/** Clouds bill per month as 730 hours. */
export const HOURS_PER_MONTH = 730;
