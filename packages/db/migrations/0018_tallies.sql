CREATE TABLE "trace_tallies" (
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"decision" text NOT NULL,
	"final_outcome" text NOT NULL,
	"traces" bigint NOT NULL,
	CONSTRAINT "trace_tallies_pkey" PRIMARY KEY("tenant_id","hour","agent_id","decision","final_outcome")
);
--> statement-breakpoint
CREATE TABLE "trace_tally_changes" (
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"decision" text NOT NULL,
	"final_outcome" text NOT NULL,
	"traces" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approval_tallies" (
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"status" text NOT NULL,
	"approvals" bigint NOT NULL,
	CONSTRAINT "approval_tallies_pkey" PRIMARY KEY("tenant_id","agent_id","status")
);
--> statement-breakpoint
CREATE TABLE "approval_tally_changes" (
	"tenant_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"status" text NOT NULL,
	"approvals" bigint NOT NULL
);
--> statement-breakpoint
CREATE FUNCTION "trace_tally_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "trace_tally_changes"
    SELECT "tenant_id", "agent_id", date_trunc('hour', "started_at", 'UTC'), "decision", "final_outcome", count(*)
    FROM "inserted" GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "trace_tally_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A trace moves from its old outcome's tally to its new one's; nothing else a tally reads ever changes.
  INSERT INTO "trace_tally_changes"
    SELECT o."tenant_id", o."agent_id", date_trunc('hour', o."started_at", 'UTC'), o."decision", moved.outcome, sum(moved.traces)
    FROM "old_rows" o
    JOIN "new_rows" n ON n."id" = o."id"
    CROSS JOIN LATERAL (VALUES (o."final_outcome", -1), (n."final_outcome", 1)) AS moved(outcome, traces)
    WHERE n."final_outcome" <> o."final_outcome"
    GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "traces_tally_inserted" AFTER INSERT ON "traces" REFERENCING NEW TABLE AS "inserted"
  FOR EACH STATEMENT EXECUTE FUNCTION "trace_tally_inserted"();
--> statement-breakpoint
CREATE TRIGGER "traces_tally_updated" AFTER UPDATE ON "traces" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "trace_tally_updated"();
--> statement-breakpoint
INSERT INTO "trace_tallies"
  SELECT "tenant_id", "agent_id", date_trunc('hour', "started_at", 'UTC'), "decision", "final_outcome", count(*)
  FROM "traces" GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
CREATE FUNCTION "approval_tally_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "approval_tally_changes"
    SELECT "tenant_id", "agent_id", "status", count(*) FROM "inserted" GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "approval_tally_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A request moves from its old status's tally to its new one's.
  INSERT INTO "approval_tally_changes"
    SELECT o."tenant_id", o."agent_id", moved.status, sum(moved.approvals)
    FROM "old_rows" o
    JOIN "new_rows" n ON n."id" = o."id"
    CROSS JOIN LATERAL (VALUES (o."status", -1), (n."status", 1)) AS moved(status, approvals)
    WHERE n."status" <> o."status"
    GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "approval_requests_tally_inserted" AFTER INSERT ON "approval_requests" REFERENCING NEW TABLE AS "inserted"
  FOR EACH STATEMENT EXECUTE FUNCTION "approval_tally_inserted"();
--> statement-breakpoint
CREATE TRIGGER "approval_requests_tally_updated" AFTER UPDATE ON "approval_requests" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "approval_tally_updated"();
--> statement-breakpoint
INSERT INTO "approval_tallies"
  SELECT "tenant_id", "agent_id", "status", count(*) FROM "approval_requests" GROUP BY 1, 2, 3;
