CREATE TABLE "cache_invalidation_clock" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"seq" bigint NOT NULL,
	CONSTRAINT "cache_invalidation_clock_single_row" CHECK ("cache_invalidation_clock"."id")
);
