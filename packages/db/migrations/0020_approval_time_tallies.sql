CREATE TABLE "approval_day_tallies" (
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"status" text NOT NULL,
	"approvals" bigint NOT NULL,
	"day" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "approval_day_tallies_pkey" PRIMARY KEY("tenant_id","day","agent_id","status")
);
--> statement-breakpoint
CREATE TABLE "approval_hour_tallies" (
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"status" text NOT NULL,
	"approvals" bigint NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "approval_hour_tallies_pkey" PRIMARY KEY("tenant_id","hour","agent_id","status")
);
--> statement-breakpoint
-- The changes written so far have no hour: they go into the tallies of all time first.
WITH "moved" AS (DELETE FROM "approval_tally_changes" RETURNING *)
INSERT INTO "approval_tallies" ("tenant_id", "agent_id", "status", "approvals")
  SELECT "tenant_id", "agent_id", "status", sum("approvals") FROM "moved" GROUP BY 1, 2, 3
  ON CONFLICT ("tenant_id", "agent_id", "status") DO UPDATE SET "approvals" = "approval_tallies"."approvals" + excluded."approvals";
--> statement-breakpoint
ALTER TABLE "approval_tally_changes" ADD COLUMN "hour" timestamp (3) with time zone NOT NULL;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "approval_tally_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "approval_tally_changes" ("tenant_id", "agent_id", "status", "approvals", "hour")
    SELECT "tenant_id", "agent_id", "status", count(*), date_trunc('hour', "requested_at", 'UTC') FROM "inserted" GROUP BY 1, 2, 3, 5;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "approval_tally_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A request moves from its old status's tally to its new one's; its `requested_at` never changes.
  INSERT INTO "approval_tally_changes" ("tenant_id", "agent_id", "status", "approvals", "hour")
    SELECT o."tenant_id", o."agent_id", moved.status, sum(moved.approvals), date_trunc('hour', o."requested_at", 'UTC')
    FROM "old_rows" o
    JOIN "new_rows" n ON n."id" = o."id"
    CROSS JOIN LATERAL (VALUES (o."status", -1), (n."status", 1)) AS moved(status, approvals)
    WHERE n."status" <> o."status"
    GROUP BY 1, 2, 3, 5;
  RETURN NULL;
END $$;
--> statement-breakpoint
INSERT INTO "approval_hour_tallies" ("tenant_id", "agent_id", "status", "approvals", "hour")
  SELECT "tenant_id", "agent_id", "status", count(*), date_trunc('hour', "requested_at", 'UTC')
  FROM "approval_requests" GROUP BY 1, 2, 3, 5;
--> statement-breakpoint
INSERT INTO "approval_day_tallies" ("tenant_id", "agent_id", "status", "approvals", "day")
  SELECT "tenant_id", "agent_id", "status", sum("approvals"), date_trunc('day', "hour", 'UTC')
  FROM "approval_hour_tallies" GROUP BY 1, 2, 3, 5;