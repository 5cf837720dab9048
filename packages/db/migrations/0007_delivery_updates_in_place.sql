-- A delivery is written once and updated soon after with the outcome of its attempt. Half of
-- each page is left free so that the new version fits beside the old one: a heap-only update,
-- with no new entry in either index.
ALTER TABLE "webhook_deliveries" SET (fillfactor = 50);
