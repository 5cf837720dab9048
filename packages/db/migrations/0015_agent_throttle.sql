ALTER TABLE "agents" ADD COLUMN "max_requests_per_minute" integer;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "max_identical_requests_per_minute" integer;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "throttle_effect" text DEFAULT 'deny' NOT NULL;